module sutura.dev/adapters/import-cube

go 1.26.0

require (
	github.com/stretchr/testify v1.12.1
	go.yaml.in/yaml/v3 v3.0.6
	sutura.dev/adapters/importread v0.0.0
	sutura.dev/domain v0.0.0
)

replace sutura.dev/domain => ../../domain

replace sutura.dev/adapters/importread => ../importread
