module sutura.dev/adapters/postgres

go 1.26

require (
	sutura.dev/domain v0.0.0
	sutura.dev/app v0.0.0
)

replace (
	sutura.dev/domain => ../../domain
	sutura.dev/app => ../../app
)
