module sutura.dev/tools

go 1.26
