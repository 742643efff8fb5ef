module sutura.dev/adapters/catalog-markdown

go 1.26.0

require (
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/stretchr/testify v1.12.1
	go.yaml.in/yaml/v3 v3.0.6
	sutura.dev/app v0.0.0
	sutura.dev/domain v0.0.0
	sutura.dev/semantic v0.0.0
)

require (
	golang.org/x/sync v0.25.0 // indirect
	golang.org/x/text v0.14.0 // indirect
	sutura.dev/runtime v0.0.0 // indirect
)

replace (
	sutura.dev/app => ../../app
	sutura.dev/domain => ../../domain
	sutura.dev/runtime => ../../runtime
	sutura.dev/semantic => ../../semantic
)
