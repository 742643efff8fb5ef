module sutura.dev/runtime

go 1.26.0

require (
	github.com/stretchr/testify v1.12.1
	golang.org/x/sync v0.25.0
)

require (
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	sutura.dev/domain v0.0.0
)

replace sutura.dev/domain => ../domain
