module sutura.dev/adapters/importread

go 1.26.0

require (
	github.com/stretchr/testify v1.12.1
	go.yaml.in/yaml/v3 v3.0.6
	sutura.dev/domain v0.0.0
)

replace sutura.dev/domain => ../../domain
