module sutura.dev/transport-inproc

go 1.26.0

require (
	github.com/stretchr/testify v1.12.1
	sutura.dev/app v0.0.0
	sutura.dev/domain v0.0.0
	sutura.dev/runtime v0.0.0
)

require (
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sync v0.25.0 // indirect
	sutura.dev/semantic v0.0.0 // indirect
)

replace sutura.dev/domain => ../domain

replace sutura.dev/semantic => ../semantic

replace sutura.dev/runtime => ../runtime

replace sutura.dev/app => ../app
