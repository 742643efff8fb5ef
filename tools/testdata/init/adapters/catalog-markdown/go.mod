module sutura.dev/adapters/catalog-markdown

go 1.26
