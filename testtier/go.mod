module sutura.dev/testtier

go 1.26.0
