module sutura.dev/app

go 1.26.0
