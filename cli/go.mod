module sutura.dev/cli

go 1.26.0

require (
	sutura.dev/adapters/catalog-markdown v0.0.0
	sutura.dev/domain v0.0.0
	sutura.dev/examples v0.0.0
)

require (
	github.com/stretchr/testify v1.12.1 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
)

replace (
	sutura.dev/adapters/catalog-markdown => ../adapters/catalog-markdown
	sutura.dev/domain => ../domain
	sutura.dev/examples => ../examples
)
