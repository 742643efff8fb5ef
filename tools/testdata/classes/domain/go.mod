module sutura.dev/domain

go 1.26
