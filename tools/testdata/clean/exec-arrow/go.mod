module sutura.dev/exec-arrow

go 1.26

require (
	sutura.dev/domain v0.0.0
	github.com/apache/arrow-go/v18 v18.0.0
)

replace (
	sutura.dev/domain => ../domain
	github.com/apache/arrow-go/v18 => ../third_party/arrow
)
