module sutura.dev/adapters/postgres

go 1.26
