module sutura.dev/adapters/clickhouse

go 1.26.0

require (
	github.com/ClickHouse/clickhouse-go/v2 v2.51.0
	github.com/stretchr/testify v1.12.1
	sutura.dev/adapters/sqlsource v0.0.0
	sutura.dev/app v0.0.0
	sutura.dev/domain v0.0.0
	sutura.dev/semantic v0.0.0
)

require (
	github.com/ClickHouse/ch-go v0.75.0 // indirect
	github.com/andybalholm/brotli v1.2.7 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/go-faster/city v1.0.1 // indirect
	github.com/go-faster/errors v0.8.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/paulmach/orb v0.14.0 // indirect
	github.com/pierrec/lz4/v4 v4.1.33 // indirect
	github.com/segmentio/asm v1.2.1 // indirect
	github.com/shopspring/decimal v1.6.0 // indirect
	go.opentelemetry.io/otel v1.47.0 // indirect
	go.opentelemetry.io/otel/trace v1.47.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sync v0.25.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	sutura.dev/runtime v0.0.0 // indirect
	sutura.dev/testtier v0.0.0 // indirect
)

replace (
	sutura.dev/adapters/sqlsource => ../sqlsource
	sutura.dev/app => ../../app
	sutura.dev/domain => ../../domain
	sutura.dev/runtime => ../../runtime
	sutura.dev/semantic => ../../semantic
)

replace sutura.dev/testtier => ../../testtier
