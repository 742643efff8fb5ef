module sutura.dev/adapters/import-osi

go 1.26

require (
	sutura.dev/domain v0.0.0
	sutura.dev/adapters/importread v0.0.0
	sutura.dev/semantic v0.0.0
	sutura.dev/runtime v0.0.0
	github.com/stretchr/testify v0.0.0
	github.com/apache/arrow-go/v18 v18.0.0
)

replace (
	sutura.dev/domain => ../../domain
	sutura.dev/adapters/importread => ../importread
	sutura.dev/semantic => ../../semantic
	sutura.dev/runtime => ../../runtime
	github.com/stretchr/testify => ../../third_party/testify
	github.com/apache/arrow-go/v18 => ../../third_party/arrow
)
