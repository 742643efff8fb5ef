module sutura.dev/examples

go 1.26
