module sutura.dev/exec-arrow

go 1.26

require (
	sutura.dev/domain v0.0.0
	sutura.dev/app v0.0.0
	sutura.dev/runtime v0.0.0
	sutura.dev/semantic v0.0.0
	github.com/apache/arrow-go/v18 v18.0.0
	github.com/stretchr/testify v0.0.0
)

replace (
	sutura.dev/domain => ../domain
	sutura.dev/app => ../app
	sutura.dev/runtime => ../runtime
	sutura.dev/semantic => ../semantic
	github.com/apache/arrow-go/v18 => ../third_party/arrow
	github.com/stretchr/testify => ../third_party/testify
)
