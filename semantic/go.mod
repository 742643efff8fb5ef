module sutura.dev/semantic

go 1.26.0
