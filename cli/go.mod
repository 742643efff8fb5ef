module sutura.dev/cli

go 1.26.0

require (
	github.com/stretchr/testify v1.12.1
	go.yaml.in/yaml/v3 v3.0.6
	sutura.dev/adapters/catalog-markdown v0.0.0
	sutura.dev/domain v0.0.0
	sutura.dev/examples v0.0.0
	sutura.dev/runtime v0.0.0
)

require (
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	golang.org/x/sync v0.25.0 // indirect
	golang.org/x/text v0.41.0 // indirect
)

replace (
	sutura.dev/adapters/catalog-markdown => ../adapters/catalog-markdown
	sutura.dev/domain => ../domain
	sutura.dev/examples => ../examples
	sutura.dev/runtime => ../runtime
)
