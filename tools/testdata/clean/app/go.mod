module sutura.dev/app

go 1.26

require (
	sutura.dev/domain v0.0.0
	sutura.dev/semantic v0.0.0
	sutura.dev/runtime v0.0.0
)

replace (
	sutura.dev/domain => ../domain
	sutura.dev/semantic => ../semantic
	sutura.dev/runtime => ../runtime
)
