module sutura.dev/widgets

go 1.26
