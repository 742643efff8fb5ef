module sutura.dev/cli

go 1.26

require (
	sutura.dev/runtime v0.0.0
)

replace (
	sutura.dev/runtime => ../runtime
)
