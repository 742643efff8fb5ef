module sutura.dev/adapters/catalog-markdown

go 1.26

require (
	sutura.dev/domain v0.0.0
	sutura.dev/semantic v0.0.0
	github.com/stretchr/testify v0.0.0
)

replace (
	sutura.dev/domain => ../../domain
	sutura.dev/semantic => ../../semantic
	github.com/stretchr/testify => ../../third_party/testify
)
