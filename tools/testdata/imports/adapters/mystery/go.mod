module sutura.dev/adapters/mystery

go 1.26
