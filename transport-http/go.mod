module sutura.dev/transport-http

go 1.26.0

require (
	github.com/google/jsonschema-go v0.4.3
	github.com/prometheus/client_golang v1.25.0
	github.com/stretchr/testify v1.12.1
	sutura.dev/app v0.0.0
	sutura.dev/domain v0.0.0
	sutura.dev/runtime v0.0.0
)

require (
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/prometheus/client_model v0.6.3 // indirect
	github.com/prometheus/common v0.72.0 // indirect
	github.com/prometheus/procfs v0.22.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sync v0.25.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
	sutura.dev/semantic v0.0.0 // indirect
)

replace sutura.dev/domain => ../domain

replace sutura.dev/semantic => ../semantic

replace sutura.dev/runtime => ../runtime

replace sutura.dev/app => ../app
