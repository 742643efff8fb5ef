module sutura.dev/domain

go 1.26

require (
	sutura.dev/runtime v0.0.0
	github.com/stretchr/testify v0.0.0
)

replace (
	sutura.dev/runtime => ../runtime
	github.com/stretchr/testify => ../third_party/testify
)
