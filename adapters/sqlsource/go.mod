module sutura.dev/adapters/sqlsource

go 1.26.0

require sutura.dev/domain v0.0.0

replace sutura.dev/domain => ../../domain
