module sutura.dev/app

go 1.26.0

require (
	sutura.dev/domain v0.0.0
	sutura.dev/runtime v0.0.0
	sutura.dev/semantic v0.0.0
)

require golang.org/x/sync v0.25.0 // indirect

replace sutura.dev/domain => ../domain

replace sutura.dev/semantic => ../semantic

replace sutura.dev/runtime => ../runtime
