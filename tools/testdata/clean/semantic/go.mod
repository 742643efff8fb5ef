module sutura.dev/semantic

go 1.26

require (
	sutura.dev/domain v0.0.0
	github.com/stretchr/testify v0.0.0
)

replace (
	sutura.dev/domain => ../domain
	github.com/stretchr/testify => ../third_party/testify
)
