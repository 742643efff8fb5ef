module sutura.dev/adapters/duckdb

go 1.26

require sutura.dev/domain v0.0.0

replace sutura.dev/domain => ../../domain
