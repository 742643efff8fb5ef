module sutura.dev/adapters/import-cube

go 1.26

require (
	sutura.dev/domain v0.0.0
	sutura.dev/adapters/import-dbt v0.0.0
	sutura.dev/adapters/catalog-markdown v0.0.0
)

replace (
	sutura.dev/domain => ../../domain
	sutura.dev/adapters/import-dbt => ../import-dbt
	sutura.dev/adapters/catalog-markdown => ../catalog-markdown
)
