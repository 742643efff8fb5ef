module sutura.dev/adapters/oracle

go 1.26.0

require (
	github.com/sijms/go-ora/v2 v2.8.24
	github.com/stretchr/testify v1.12.1
	sutura.dev/adapters/sqlsource v0.0.0
	sutura.dev/app v0.0.0
	sutura.dev/domain v0.0.0
	sutura.dev/semantic v0.0.0
	sutura.dev/testtier v0.0.0
)

require (
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sync v0.25.0 // indirect
	sutura.dev/runtime v0.0.0 // indirect
)

replace (
	sutura.dev/adapters/sqlsource => ../sqlsource
	sutura.dev/app => ../../app
	sutura.dev/domain => ../../domain
	sutura.dev/runtime => ../../runtime
	sutura.dev/semantic => ../../semantic
	sutura.dev/testtier => ../../testtier
)
