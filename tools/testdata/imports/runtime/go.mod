module sutura.dev/runtime

go 1.26

require (
	github.com/stretchr/testify v0.0.0
)

replace (
	github.com/stretchr/testify => ../third_party/testify
)
