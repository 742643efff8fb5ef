module sutura.dev/cli

go 1.26

require (
	sutura.dev/domain v0.0.0
	sutura.dev/app v0.0.0
	sutura.dev/runtime v0.0.0
	sutura.dev/semantic v0.0.0
	sutura.dev/exec-arrow v0.0.0
	sutura.dev/adapters/catalog-markdown v0.0.0
	sutura.dev/transport-http v0.0.0
	github.com/apache/arrow-go/v18 v18.0.0
)

replace (
	sutura.dev/domain => ../domain
	sutura.dev/app => ../app
	sutura.dev/runtime => ../runtime
	sutura.dev/semantic => ../semantic
	sutura.dev/exec-arrow => ../exec-arrow
	sutura.dev/adapters/catalog-markdown => ../adapters/catalog-markdown
	sutura.dev/transport-http => ../transport-http
	github.com/apache/arrow-go/v18 => ../third_party/arrow
)
