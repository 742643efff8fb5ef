module sutura.dev/transport-http

go 1.26
