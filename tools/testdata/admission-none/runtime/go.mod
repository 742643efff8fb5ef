module sutura.dev/runtime

go 1.26
