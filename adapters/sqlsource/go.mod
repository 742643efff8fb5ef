module sutura.dev/adapters/sqlsource

go 1.26.0

require (
	github.com/stretchr/testify v1.12.1
	sutura.dev/domain v0.0.0
	sutura.dev/semantic v0.0.0
)

require (
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	sutura.dev/testtier v0.0.0
)

replace (
	sutura.dev/domain => ../../domain
	sutura.dev/semantic => ../../semantic
)

replace sutura.dev/testtier => ../../testtier
