module sutura.dev/transport-mcp

go 1.26.0

require (
	github.com/google/jsonschema-go v0.4.3
	github.com/modelcontextprotocol/go-sdk v1.8.0
	github.com/stretchr/testify v1.12.1
	sutura.dev/app v0.0.0
	sutura.dev/domain v0.0.0
	sutura.dev/runtime v0.0.0
)

require (
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.25.0 // indirect
	golang.org/x/sys v0.41.0 // indirect
	golang.org/x/time v0.15.0 // indirect
	sutura.dev/semantic v0.0.0 // indirect
)

replace sutura.dev/domain => ../domain

replace sutura.dev/semantic => ../semantic

replace sutura.dev/runtime => ../runtime

replace sutura.dev/app => ../app
