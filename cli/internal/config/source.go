package config

import "slices"

// SourceKind is the data system of a source (sources.<alias>.kind).
type SourceKind string

// The values of sources.<alias>.kind.
const (
	KindFiles      SourceKind = "files"
	KindPostgres   SourceKind = "postgres"
	KindOracle     SourceKind = "oracle"
	KindDuckDB     SourceKind = "duckdb"
	KindClickHouse SourceKind = "clickhouse"
	KindBigQuery   SourceKind = "bigquery"
)

// Posture is how a source's legs run (sources.<alias>.posture).
type Posture string

// The values of sources.<alias>.posture.
const (
	SharedServiceUser     Posture = "shared-service-user"
	ImpersonationAtSource Posture = "impersonation-at-source"
)

// TransportMode is how a database connection is protected
// (sources.<alias>.transport_mode).
type TransportMode string

// The values of sources.<alias>.transport_mode.
const (
	// Plaintext is allowed only to a loopback address or a unix socket.
	Plaintext TransportMode = "plaintext"
	// Verified is TLS with the server's certificate verified.
	Verified TransportMode = "verified"
	// Mutual is Verified plus a client certificate.
	Mutual TransportMode = "mutual"
)

// Source is one data system. It carries the keys of every kind; the
// loader refuses a key that does not apply to the source's kind, so only
// the keys of Kind are ever non-zero. The loader checks the shape of each
// key; what the kind requires of them (a host, a transport that suits it,
// a database file that exists) is checked once, by the kind's adapter,
// when the source is opened.
type Source struct {
	// Kind is the data system.
	Kind SourceKind `yaml:"kind"`
	// Posture is shared-service-user or impersonation-at-source.
	Posture Posture `yaml:"posture"`
	// AcknowledgedBecause records why a shared source is acceptable in
	// multi-user mode.
	AcknowledgedBecause string `yaml:"acknowledged_because,omitempty"`

	// DataDir is the resolved directory a files source reads.
	DataDir string `yaml:"data_dir,omitempty"`

	// Host is the database host name or IP; exclusive with UnixSocket.
	Host string `yaml:"host,omitempty"`
	// Port is the database port; the kind's standard port when omitted
	// (postgres 5432, oracle 1521, clickhouse 9440 with TLS, 9000 without).
	Port int `yaml:"port,omitempty"`
	// UnixSocket is the resolved path of a unix socket (or, for
	// postgres, its directory); exclusive with Host. ClickHouse's native
	// protocol has none.
	UnixSocket string `yaml:"unix_socket,omitempty"`
	// Database is the database name (postgres, clickhouse).
	Database string `yaml:"database,omitempty"`
	// Service is the Oracle service name.
	Service string `yaml:"service,omitempty"`
	// WalletDir is the resolved directory of an Oracle auto-login wallet
	// whose certificates TLS uses (verified and mutual).
	WalletDir string `yaml:"wallet_dir,omitempty"`
	// User is the database user the source connects as.
	User string `yaml:"user,omitempty"`
	// PasswordFile is the resolved path of the password file.
	PasswordFile string `yaml:"password_file,omitempty"`
	// TransportMode is plaintext, verified or mutual; empty means the
	// adapter's default (plaintext over a unix socket, verified
	// otherwise).
	TransportMode TransportMode `yaml:"transport_mode,omitempty"`
	// CAFile is the resolved path of the CA bundle (system roots when
	// empty).
	CAFile string `yaml:"ca_file,omitempty"`
	// CertFile is the resolved path of the client certificate (mutual).
	CertFile string `yaml:"cert_file,omitempty"`
	// KeyFile is the resolved path of the client key (mutual).
	KeyFile string `yaml:"key_file,omitempty"`
	// Impersonate maps a caller subject to the database role it runs as.
	Impersonate map[string]string `yaml:"impersonate,omitempty" key:"subject"`
	// VerificationIdentity is the database role start-up checks (anchors,
	// table validation) run as on an impersonation-at-source source, where
	// there is no caller.
	VerificationIdentity string `yaml:"verification_identity,omitempty"`
	// TLSServerName is the name expected in the server's certificate when
	// it differs from Host.
	TLSServerName string `yaml:"tls_server_name,omitempty"`

	// Path is the resolved DuckDB database file.
	Path string `yaml:"path,omitempty"`
	// Threads is how many threads DuckDB runs a statement on; DuckDB's
	// default (the number of cores) when omitted.
	Threads int `yaml:"threads,omitempty"`
	// MemoryLimitBytes bounds DuckDB's memory; DuckDB's default (80% of
	// the machine's memory) when omitted.
	MemoryLimitBytes int64 `yaml:"memory_limit_bytes,omitempty"`

	// Project is the BigQuery project.
	Project string `yaml:"project,omitempty"`
	// Location is the BigQuery location jobs run in.
	Location string `yaml:"location,omitempty"`
	// Dataset is the default BigQuery dataset.
	Dataset string `yaml:"dataset,omitempty"`
	// CredentialsFile is the resolved path of a service account key
	// (application default credentials when empty).
	CredentialsFile string `yaml:"credentials_file,omitempty"`
	// Endpoint is an alternative BigQuery API endpoint.
	Endpoint string `yaml:"endpoint,omitempty"`
	// MaximumBytesBilled bounds the bytes every BigQuery job may bill;
	// the adapter's default when omitted.
	MaximumBytesBilled int64 `yaml:"maximum_bytes_billed,omitempty"`

	// Password is the content of PasswordFile; absent when unset.
	Password Secret `yaml:"-"`
}

// databaseKinds are the kinds reached over a network connection with
// host, user and transport settings.
var databaseKinds = []SourceKind{KindPostgres, KindOracle, KindClickHouse}

// allKinds lists every source kind in documentation order.
var allKinds = []SourceKind{KindFiles, KindPostgres, KindOracle, KindDuckDB, KindClickHouse, KindBigQuery}

// SourceKinds returns every kind of source the configuration accepts, in
// documentation order.
func SourceKinds() []SourceKind { return slices.Clone(allKinds) }

// sourceKeyKinds says which kinds accept each key of a source. It is the
// table the loader checks and the reference test compares with the
// "Kinds" column of docs/configuration.md.
var sourceKeyKinds = map[string][]SourceKind{
	"kind":                  allKinds,
	"posture":               allKinds,
	"acknowledged_because":  allKinds,
	"data_dir":              {KindFiles},
	"host":                  databaseKinds,
	"port":                  databaseKinds,
	"unix_socket":           {KindPostgres, KindOracle},
	"database":              {KindPostgres, KindClickHouse},
	"service":               {KindOracle},
	"wallet_dir":            {KindOracle},
	"user":                  databaseKinds,
	"password_file":         databaseKinds,
	"transport_mode":        databaseKinds,
	"ca_file":               databaseKinds,
	"cert_file":             databaseKinds,
	"key_file":              databaseKinds,
	"impersonate":           databaseKinds,
	"verification_identity": databaseKinds,
	"tls_server_name":       databaseKinds,
	"path":                  {KindDuckDB},
	"threads":               {KindDuckDB},
	"memory_limit_bytes":    {KindDuckDB},
	"project":               {KindBigQuery},
	"location":              {KindBigQuery},
	"dataset":               {KindBigQuery},
	"credentials_file":      {KindBigQuery},
	"endpoint":              {KindBigQuery},
	"maximum_bytes_billed":  {KindBigQuery},
}

// hasIdentity reports whether a source of kind has identities of its own
// that a leg could run as (impersonation-at-source). Files and DuckDB have
// none: their posture is refused, by the loader for files and by the
// adapter for duckdb, rather than asked for a way to carry the subject.
func hasIdentity(kind SourceKind) bool { return kind != KindFiles && kind != KindDuckDB }

// keyApplies reports whether key is valid for kind.
func keyApplies(key string, kind SourceKind) bool {
	return slices.Contains(sourceKeyKinds[key], kind)
}
