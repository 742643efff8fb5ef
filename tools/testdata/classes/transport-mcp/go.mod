module sutura.dev/transport-mcp

go 1.26

require (
	sutura.dev/domain v0.0.0
	sutura.dev/transport-http v0.0.0
	sutura.dev/adapters/catalog-markdown v0.0.0
)

replace (
	sutura.dev/domain => ../domain
	sutura.dev/transport-http => ../transport-http
	sutura.dev/adapters/catalog-markdown => ../adapters/catalog-markdown
)
