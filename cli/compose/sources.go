package compose

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"time"

	"sutura.dev/adapters/bigquery"
	"sutura.dev/adapters/clickhouse"
	"sutura.dev/adapters/duckdb"
	"sutura.dev/adapters/oracle"
	"sutura.dev/adapters/postgres"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/app"
	"sutura.dev/cli/internal/config"
	"sutura.dev/domain"
	"sutura.dev/examples/demo"
	engine "sutura.dev/exec-arrow"
)

// sourceSpec is everything a source kind is built from: the configured
// source, its alias, the models of the bundle that live on it, and the
// process's bounds.
type sourceSpec struct {
	alias   string
	source  config.Source
	models  []domain.Model
	runtime config.Runtime
	// logger receives what a source has no caller to tell (the embedded
	// engine's background cache fills); nil discards.
	logger *slog.Logger
	// oneShot is a process that answers one question and exits: the
	// embedded engine fills no cache in the background (Options.OneShot).
	oneShot bool
}

// openedSource is an opened data system and what releases it.
type openedSource struct {
	source app.Source
	close  func()
}

// sourceKind is one row of the table of source kinds: how to open a
// source of the kind and how to check briefly that it can be reached
// (doctor).
type sourceKind struct {
	open func(ctx context.Context, spec sourceSpec) (openedSource, error)
	ping func(ctx context.Context, spec sourceSpec) error
}

// sourceKinds is the one table of the source kinds this build can open:
// the composition root's explicit registry (there is no registration by
// init). A new database adapter is one row here: its configuration from
// the spec, and its constructor.
var sourceKinds = map[config.SourceKind]sourceKind{
	config.KindFiles:      {open: openFiles, ping: pingFiles},
	config.KindPostgres:   databaseKind(postgresConfig, postgres.New),
	config.KindDuckDB:     databaseKind(duckdbConfig, duckdb.New),
	config.KindClickHouse: databaseKind(clickhouseConfig, clickhouse.New),
	config.KindOracle:     databaseKind(oracleConfig, oracle.New),
	config.KindBigQuery:   databaseKind(bigqueryConfig, bigquery.New),
}

// database is what the composition root needs of a database adapter: a
// data system that holds its posture, answers a round trip and releases
// what it opened.
type database interface {
	app.DataSystem
	Posture() domain.Posture
	Ping(ctx context.Context) error
	Close()
}

// databaseKind is the row of a database adapter whose configuration type
// is C. configure maps the configured source onto the adapter's Config,
// key for key; the adapter's constructor validates it — the one check of
// a source's settings — and holds the posture the opened source reports.
func databaseKind[C any, D database](configure func(sourceSpec) C, newDB func(context.Context, C) (D, error)) sourceKind {
	return sourceKind{
		open: func(ctx context.Context, spec sourceSpec) (openedSource, error) {
			db, err := newDB(ctx, configure(spec))
			if err != nil {
				return openedSource{}, err
			}
			return openedSource{source: app.Source{System: db, Posture: db.Posture()}, close: db.Close}, nil
		},
		ping: func(ctx context.Context, spec sourceSpec) error {
			ctx, cancel := context.WithTimeout(ctx, pingTimeout)
			defer cancel()
			spec.runtime.MaxConcurrentQueries = 1
			db, err := newDB(ctx, configure(spec))
			if err != nil {
				return err
			}
			defer db.Close()
			return db.Ping(ctx)
		},
	}
}

// pingTimeout bounds doctor's round trip to one source.
const pingTimeout = 5 * time.Second

// filesSource is the embedded engine's configuration of a files source.
// Files sources run as the service (configuration refuses another
// posture).
func filesSource(spec sourceSpec) engine.Config {
	return engine.Config{Source: spec.alias, Files: os.DirFS(spec.source.DataDir), Models: spec.models,
		WorkingSetMaxBytes: spec.runtime.WorkingSetMaxBytes, Logger: spec.logger, NoCacheFill: spec.oneShot,
		HoldFills: !spec.oneShot}
}

func openFiles(ctx context.Context, spec sourceSpec) (openedSource, error) {
	eng, err := engine.New(ctx, filesSource(spec))
	if err != nil {
		return openedSource{}, err
	}
	return openedSource{source: app.Source{System: eng, Posture: domain.Posture(spec.source.Posture)}, close: func() {}}, nil
}

func pingFiles(_ context.Context, spec sourceSpec) error {
	dir := spec.source.DataDir
	info, err := os.Stat(dir)
	if err == nil && !info.IsDir() {
		err = fmt.Errorf("%s is not a directory", dir)
	}
	return err
}

// postgresConfig is the adapter's configuration of a postgres source.
func postgresConfig(spec sourceSpec) postgres.Config {
	src := spec.source
	return postgres.Config{Source: spec.alias, Server: server(spec), UnixSocket: src.UnixSocket, Models: spec.models}
}

// duckdbConfig is the adapter's configuration of a duckdb source.
func duckdbConfig(spec sourceSpec) duckdb.Config {
	src := spec.source
	return duckdb.Config{
		Source: spec.alias, Path: src.Path, Threads: src.Threads, MemoryLimitBytes: src.MemoryLimitBytes,
		Posture: domain.Posture(src.Posture),
		Models:  spec.models, MaxConns: spec.runtime.MaxConcurrentQueries,
	}
}

// clickhouseConfig is the adapter's configuration of a clickhouse source.
func clickhouseConfig(spec sourceSpec) clickhouse.Config {
	return clickhouse.Config{Source: spec.alias, Server: server(spec), Models: spec.models}
}

// oracleConfig is the adapter's configuration of an oracle source.
func oracleConfig(spec sourceSpec) oracle.Config {
	src := spec.source
	return oracle.Config{Source: spec.alias, Server: server(spec), Service: src.Service, UnixSocket: src.UnixSocket,
		WalletDir: src.WalletDir, Models: spec.models}
}

// bigqueryConfig is the adapter's configuration of a bigquery source. It
// has no pool to bound: every question is a job of its own.
func bigqueryConfig(spec sourceSpec) bigquery.Config {
	src := spec.source
	return bigquery.Config{
		Source: spec.alias, Project: src.Project, Location: src.Location, Dataset: src.Dataset,
		CredentialsFile: src.CredentialsFile, Endpoint: src.Endpoint, MaximumBytesBilled: src.MaximumBytesBilled,
		Posture: domain.Posture(src.Posture), Models: spec.models,
	}
}

// server is the part of a networked SQL source's configuration every SQL
// adapter shares.
func server(spec sourceSpec) sqlsource.Server {
	src := spec.source
	return sqlsource.Server{
		Host: src.Host, Port: src.Port, Database: src.Database, User: src.User, Password: src.Password.Reveal(),
		TransportMode: sqlsource.TransportMode(src.TransportMode), CAFile: src.CAFile,
		CertFile: src.CertFile, KeyFile: src.KeyFile, ServerName: src.TLSServerName,
		Posture: domain.Posture(src.Posture), Impersonate: src.Impersonate,
		VerificationIdentity: src.VerificationIdentity, MaxConns: spec.runtime.MaxConcurrentQueries,
	}
}

// newCombiner is the combine of federated answers: the embedded engine's,
// over the working set of the first files source (so that one ceiling
// bounds the engine's cached columns and the combine's work), or over a
// working set of its own, of runtime.working_set_max_bytes, when no files
// source is configured.
func newCombiner(ctx context.Context, cfg *config.Config, sources map[string]app.Source) (app.Combiner, error) {
	aliases := make([]string, 0, len(sources))
	for a := range sources {
		aliases = append(aliases, a)
	}
	slices.Sort(aliases)
	for _, a := range aliases {
		if eng, ok := sources[a].System.(*engine.Engine); ok {
			return eng.Combiner(), nil
		}
	}
	return engine.NewCombiner(ctx, engine.CombinerConfig{WorkingSetMaxBytes: cfg.Runtime.WorkingSetMaxBytes})
}

// settingError is an adapter's refusal of one setting of its source: the
// key under sources.<alias> and why, never the value. Every database
// adapter's ConfigError is one.
type settingError interface {
	error
	Setting() (key, reason string)
}

// sourceError is the error of opening (or pinging) the source alias: an
// adapter's refusal of a setting becomes the configuration's refusal of
// sources.<alias>.<key>, naming the layer the value came from, as if the
// loader had found it; anything else is wrapped with the source's key.
func sourceError(cfg *config.Config, alias string, err error) error {
	var se settingError
	if errors.As(err, &se) {
		key, reason := se.Setting()
		return cfg.Refusal(childKey("sources."+alias, key), reason)
	}
	return fmt.Errorf("sources.%s: %w", alias, err)
}

// childKey is parent.key.
func childKey(parent, key string) string { return parent + "." + key }

// errNoAdapter is the error of a configured kind this build has no row
// for: a defect, since the configuration accepts only the kinds of
// sourceKinds.
var errNoAdapter = errors.New("the composition root has no row for this kind (a defect: the configuration accepted it)")

// openedSources is the set of sources one bundle was opened with.
type openedSources struct {
	sources map[string]app.Source
	closers []func()
}

// close releases every opened source, in the reverse order of opening.
func (o *openedSources) close() {
	for i := len(o.closers) - 1; i >= 0; i-- {
		o.closers[i]()
	}
	o.closers = nil
}

// openSources opens every configured source (or the embedded demo's) with
// the models of b that live on it, in alias order; logger (nil discards)
// receives what the sources log on their own; oneShot is Options.OneShot.
// When one fails, the ones already opened are closed before it returns.
func openSources(ctx context.Context, cfg *config.Config, b *domain.Bundle, logger *slog.Logger, oneShot bool) (*openedSources, error) {
	byAlias := map[string][]domain.Model{}
	for _, m := range b.Definitions().Models {
		byAlias[m.Source] = append(byAlias[m.Source], m)
	}
	o := &openedSources{sources: map[string]app.Source{}}
	if cfg.Demo() {
		eng, err := engine.New(ctx, engine.Config{Source: demo.SourceAlias, Files: demo.Data(), Models: byAlias[demo.SourceAlias],
			WorkingSetMaxBytes: cfg.Runtime.WorkingSetMaxBytes, Logger: logger, NoCacheFill: oneShot, HoldFills: !oneShot})
		if err != nil {
			return nil, err
		}
		o.sources[demo.SourceAlias] = app.Source{System: eng, Posture: domain.SharedServiceUser}
		return o, nil
	}
	for _, alias := range sortedAliases(cfg) {
		src := cfg.Sources[alias]
		kind, ok := sourceKinds[src.Kind]
		if !ok {
			o.close()
			return nil, fmt.Errorf("sources.%s.kind: %w", alias, errNoAdapter)
		}
		opened, err := kind.open(ctx, sourceSpec{alias: alias, source: src, models: byAlias[alias], runtime: cfg.Runtime, logger: logger, oneShot: oneShot})
		if err != nil {
			o.close()
			return nil, sourceError(cfg, alias, err)
		}
		o.closers = append(o.closers, opened.close)
		o.sources[alias] = opened.source
	}
	return o, nil
}

func sortedAliases(cfg *config.Config) []string {
	aliases := make([]string, 0, len(cfg.Sources))
	for a := range cfg.Sources {
		aliases = append(aliases, a)
	}
	slices.Sort(aliases)
	return aliases
}

// SourceCheck is whether one configured source can be reached.
type SourceCheck struct {
	Alias string
	Kind  config.SourceKind
	Err   error
}

// CheckSources tries every configured source briefly, without building a
// process: a files source's data directory must exist; a database must
// answer a round trip within five seconds. Used by `sutura doctor`.
func CheckSources(ctx context.Context, cfg *config.Config) []SourceCheck {
	var out []SourceCheck
	for _, alias := range sortedAliases(cfg) {
		src := cfg.Sources[alias]
		c := SourceCheck{Alias: alias, Kind: src.Kind, Err: errNoAdapter}
		if kind, ok := sourceKinds[src.Kind]; ok {
			if err := kind.ping(ctx, sourceSpec{alias: alias, source: src, runtime: cfg.Runtime}); err != nil {
				c.Err = sourceError(cfg, alias, err)
			} else {
				c.Err = nil
			}
		}
		out = append(out, c)
	}
	return out
}
