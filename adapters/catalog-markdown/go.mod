module sutura.dev/adapters/catalog-markdown

go 1.26.0

require sutura.dev/domain v0.0.0

require (
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/text v0.14.0 // indirect
)

replace sutura.dev/domain => ../../domain
