module sutura.dev/exec-arrow

go 1.26
