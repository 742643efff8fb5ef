module sutura.dev/adapters/postgres

go 1.26

require (
	sutura.dev/domain v0.0.0
	sutura.dev/adapters/sqlsource v0.0.0
	sutura.dev/adapters/duckdb v0.0.0
)

replace (
	sutura.dev/domain => ../../domain
	sutura.dev/adapters/sqlsource => ../../adapters/sqlsource
	sutura.dev/adapters/duckdb => ../../adapters/duckdb
)
