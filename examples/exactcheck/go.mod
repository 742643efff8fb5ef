module sutura.dev/examples/exactcheck

go 1.26.0

require (
	github.com/apache/arrow-go/v18 v18.8.0
	github.com/duckdb/duckdb-go/v2 v2.10506.0
	github.com/stretchr/testify v1.12.1
	sutura.dev/adapters/clickhouse v0.0.0
	sutura.dev/adapters/clickhouse/chdbtest v0.0.0
	sutura.dev/adapters/duckdb v0.0.0
	sutura.dev/adapters/postgres v0.0.0
	sutura.dev/domain v0.0.0
	sutura.dev/exec-arrow v0.0.0
	sutura.dev/testtier v0.0.0
)

require (
	github.com/ClickHouse/ch-go v0.75.0 // indirect
	github.com/ClickHouse/clickhouse-go/v2 v2.51.0 // indirect
	github.com/andybalholm/brotli v1.2.7 // indirect
	github.com/apache/thrift v0.24.0 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/duckdb/duckdb-go-bindings v0.10506.0 // indirect
	github.com/duckdb/duckdb-go-bindings/lib/darwin-amd64 v0.10506.0 // indirect
	github.com/duckdb/duckdb-go-bindings/lib/darwin-arm64 v0.10506.0 // indirect
	github.com/duckdb/duckdb-go-bindings/lib/linux-amd64 v0.10506.0 // indirect
	github.com/duckdb/duckdb-go-bindings/lib/linux-arm64 v0.10506.0 // indirect
	github.com/duckdb/duckdb-go-bindings/lib/windows-amd64 v0.10506.0 // indirect
	github.com/go-faster/city v1.0.1 // indirect
	github.com/go-faster/errors v0.8.0 // indirect
	github.com/go-viper/mapstructure/v2 v2.5.0 // indirect
	github.com/goccy/go-json v0.10.6 // indirect
	github.com/google/flatbuffers v25.12.19+incompatible // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/jackc/pgx/v5 v5.12.0 // indirect
	github.com/jackc/puddle/v2 v2.2.3 // indirect
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/klauspost/cpuid/v2 v2.4.0 // indirect
	github.com/paulmach/orb v0.14.0 // indirect
	github.com/pierrec/lz4/v4 v4.1.33 // indirect
	github.com/segmentio/asm v1.2.1 // indirect
	github.com/shopspring/decimal v1.6.0 // indirect
	github.com/zeebo/xxh3 v1.1.0 // indirect
	go.opentelemetry.io/otel v1.47.0 // indirect
	go.opentelemetry.io/otel/trace v1.47.0 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/exp v0.0.0-20260112195511-716be5621a96 // indirect
	golang.org/x/net v0.62.0 // indirect
	golang.org/x/sync v0.25.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.43.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260526163538-3dc84a4a5aaa // indirect
	google.golang.org/grpc v1.83.2 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
	sutura.dev/adapters/sqlsource v0.0.0 // indirect
	sutura.dev/semantic v0.0.0 // indirect
)

replace (
	sutura.dev/adapters/catalog-markdown => ../../adapters/catalog-markdown
	sutura.dev/adapters/clickhouse => ../../adapters/clickhouse
	sutura.dev/adapters/clickhouse/chdbtest => ../../adapters/clickhouse/chdbtest
	sutura.dev/adapters/duckdb => ../../adapters/duckdb
	sutura.dev/adapters/postgres => ../../adapters/postgres
	sutura.dev/adapters/sqlsource => ../../adapters/sqlsource
	sutura.dev/app => ../../app
	sutura.dev/domain => ../../domain
	sutura.dev/examples => ..
	sutura.dev/exec-arrow => ../../exec-arrow
	sutura.dev/runtime => ../../runtime
	sutura.dev/semantic => ../../semantic
	sutura.dev/testtier => ../../testtier
	sutura.dev/transport-inproc => ../../transport-inproc
)
