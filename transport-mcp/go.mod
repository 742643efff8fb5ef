module sutura.dev/transport-mcp

go 1.26.0
