module sutura.dev/execarrow

go 1.26
