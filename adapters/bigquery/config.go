package bigquery

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	"google.golang.org/api/option"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
)

// Defaults of the zero Config.
const (
	// DefaultMaximumBytesBilled is the bound of the bytes one job may bill
	// when Config.MaximumBytesBilled is zero: 10 GiB.
	DefaultMaximumBytesBilled int64 = 10 << 30
	// DefaultTimeout is the budget of a call whose context has no
	// deadline.
	DefaultTimeout = sqlsource.DefaultTimeout
)

// Config describes one bigquery source (docs/contract.md §9). The zero
// value of every optional field is its default; New validates the rest.
type Config struct {
	// Source is the configured source alias; plans whose leg names another
	// source are not executed.
	Source string
	// Project is the project jobs run and are billed in (required); it is
	// also the project of tables named dataset.t.
	Project string
	// Location is the location jobs run in ("EU", "US", "europe-west1";
	// required): the location of the datasets the models read.
	Location string
	// Dataset is the default dataset: the dataset of tables named t.
	Dataset string
	// CredentialsFile is a service-account or external-account JSON key;
	// empty means Application Default Credentials.
	CredentialsFile string
	// Endpoint is an alternative API endpoint (https, or http only to a
	// loopback address, which is called without authentication: an
	// emulator or a test double, and credentials never travel in
	// plaintext); empty means BigQuery's.
	Endpoint string
	// MaximumBytesBilled bounds the bytes every job may bill; zero means
	// DefaultMaximumBytesBilled.
	MaximumBytesBilled int64
	// Posture is shared-service-user (the only one BigQuery can carry
	// here); empty means shared-service-user.
	Posture domain.Posture
	// DefaultTimeout is the budget of a call whose context has no
	// deadline; zero means DefaultTimeout.
	DefaultTimeout time.Duration
	// Models are the models of this source; Validate checks their tables
	// and declared columns.
	Models []domain.Model
	// ClientOptions are handed to the client library after the ones the
	// fields above make (a test double's endpoint and no authentication,
	// an embedder's HTTP client). The composition root sets none.
	ClientOptions []option.ClientOption
}

// ConfigError is New's refusal of one setting of the configuration (see
// sqlsource.ConfigError); its text starts "bigquery source <alias>:".
type ConfigError = sqlsource.ConfigError

func configError(source, key, reason string) error {
	return &ConfigError{System: "bigquery", Source: source, Key: key, Reason: reason}
}

var (
	// projectID is the shape of a project id, with an optional domain
	// prefix (example.com:project).
	projectID = regexp.MustCompile(`^([a-z0-9.-]+:)?[a-z][a-z0-9-]{4,28}[a-z0-9]$`)
	// datasetID is the shape of a dataset id, at most maxDatasetID
	// bytes long (checked apart: a bounded repetition compiles to a
	// program of a thousand copies, 13 ms at every process start).
	datasetID = regexp.MustCompile(`^[A-Za-z0-9_]+$`)
	// location is the shape of a location name.
	location = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9-]*$`)
)

// maxDatasetID is the longest dataset id BigQuery accepts.
const maxDatasetID = 1024

// normalize validates cfg and fills its defaults. It is the one check of
// a bigquery source's settings: configuration only checks the shape of
// each key.
func (cfg *Config) normalize() error {
	refuse := func(key, reason string) error { return configError(cfg.Source, key, reason) }
	if err := domain.CheckIdent(cfg.Source); err != nil {
		return fmt.Errorf("bigquery source: the alias %w", err)
	}
	switch {
	case cfg.Project == "":
		return refuse("project", "is required")
	case !projectID.MatchString(cfg.Project):
		return refuse("project", "is not a BigQuery project id")
	case cfg.Location == "":
		return refuse("location", "is required: the location of the datasets the models read (EU, US, europe-west1)")
	case !location.MatchString(cfg.Location):
		return refuse("location", "is not a BigQuery location name")
	case cfg.Dataset != "" && (len(cfg.Dataset) > maxDatasetID || !datasetID.MatchString(cfg.Dataset)):
		return refuse("dataset", "is not a BigQuery dataset id (letters, digits and underscores)")
	case cfg.MaximumBytesBilled < 0:
		return refuse("maximum_bytes_billed", "may not be negative")
	case cfg.DefaultTimeout < 0:
		return fmt.Errorf("bigquery source %s: the default timeout may not be negative", cfg.Source)
	}
	if cfg.Endpoint != "" {
		u, err := url.Parse(cfg.Endpoint)
		switch {
		case err != nil || u.Host == "" || u.User != nil:
			return refuse("endpoint", "must be an absolute https URL without credentials")
		case u.Scheme == "http" && !sqlsource.Loopback(u.Hostname()):
			return refuse("endpoint", "may be http only to a loopback address or localhost: use https")
		case u.Scheme != "https" && u.Scheme != "http":
			return refuse("endpoint", "must be an https URL")
		case u.Scheme == "http" && cfg.CredentialsFile != "":
			return refuse("credentials_file", "is set with an http endpoint, which is called without credentials (credentials never travel in plaintext): use an https endpoint or leave credentials_file out")
		}
	}
	switch cfg.Posture {
	case "":
		cfg.Posture = domain.SharedServiceUser
	case domain.SharedServiceUser:
	case domain.ImpersonationAtSource:
		return refuse("posture", "is impersonation-at-source, which this version cannot carry to BigQuery: every job runs as the service account; use shared-service-user (docs/operations.md, \"BigQuery and Oracle sources\")")
	default:
		return refuse("posture", "must be shared-service-user")
	}
	if cfg.MaximumBytesBilled == 0 {
		cfg.MaximumBytesBilled = DefaultMaximumBytesBilled
	}
	if cfg.DefaultTimeout == 0 {
		cfg.DefaultTimeout = DefaultTimeout
	}
	cfg.Models = append([]domain.Model(nil), cfg.Models...)
	for _, m := range cfg.Models {
		if _, err := cfg.tableOf(&m); err != nil {
			return err
		}
	}
	return nil
}

// table is a table's full name.
type table struct{ project, dataset, name string }

// tableOf is the table of model m: t in Dataset, dataset.t in Project, or
// project.dataset.t.
func (cfg *Config) tableOf(m *domain.Model) (table, error) {
	parts := m.TableParts()
	switch len(parts) {
	case 1:
		if cfg.Dataset == "" {
			return table{}, fmt.Errorf("bigquery source %s: model %s: table %s names no dataset and the source has none: write dataset.%s or set dataset", cfg.Source, m.Name, m.Table, m.Table)
		}
		return table{cfg.Project, cfg.Dataset, parts[0]}, nil
	case 2:
		return table{cfg.Project, parts[0], parts[1]}, nil
	case 3:
		return table{parts[0], parts[1], parts[2]}, nil
	}
	return table{}, fmt.Errorf("bigquery source %s: model %s: table %s must be t, dataset.t or project.dataset.t", cfg.Source, m.Name, m.Table)
}

// clientOptions are the client library's options cfg asks for.
func (cfg *Config) clientOptions() ([]option.ClientOption, error) {
	var opts []option.ClientOption
	if cfg.CredentialsFile != "" {
		kind, err := credentialsKind(cfg.CredentialsFile)
		if err != nil {
			return nil, configError(cfg.Source, "credentials_file", err.Error())
		}
		opts = append(opts, option.WithAuthCredentialsFile(kind, cfg.CredentialsFile))
	}
	if cfg.Endpoint != "" {
		opts = append(opts, option.WithEndpoint(cfg.Endpoint))
		if strings.HasPrefix(cfg.Endpoint, "http:") {
			opts = append(opts, option.WithoutAuthentication())
		}
	}
	return append(opts, cfg.ClientOptions...), nil
}

// credentialsKind is the kind of the credentials in file: a service
// account or an external account (workload identity federation), the two
// the contract names. Any other kind is refused: a credential
// configuration can make the library run programs or reach arbitrary URLs,
// so only the kinds an operator is told to give are read.
func credentialsKind(file string) (option.CredentialsType, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("cannot be read")
	}
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return "", fmt.Errorf("is not a JSON credentials file")
	}
	switch strings.TrimSpace(head.Type) {
	case "service_account":
		return option.ServiceAccount, nil
	case "external_account":
		return option.ExternalAccount, nil
	}
	return "", fmt.Errorf("must hold a service_account or external_account key")
}
