module sutura.dev/examples

go 1.26.0

require (
	github.com/apache/arrow-go/v18 v18.8.0 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
)
