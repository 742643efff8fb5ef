package compose

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"sutura.dev/adapters/postgres"
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
}

// openedSource is an opened data system and what releases it.
type openedSource struct {
	source app.Source
	close  func()
}

// sourceKind is one row of the table of source kinds: how to open a
// source of the kind and how to check briefly that it can be reached
// (doctor). Each row is built by kindOf from three functions of the
// adapter: its configuration from the spec (the adapter validates it, once,
// in its constructor), open, and ping.
type sourceKind struct {
	open func(ctx context.Context, spec sourceSpec) (openedSource, error)
	ping func(ctx context.Context, spec sourceSpec) error
}

// kindOf is the row of an adapter whose configuration type is C.
func kindOf[C any](configure func(sourceSpec) C, open func(context.Context, C) (openedSource, error), ping func(context.Context, C) error) sourceKind {
	return sourceKind{
		open: func(ctx context.Context, spec sourceSpec) (openedSource, error) { return open(ctx, configure(spec)) },
		ping: func(ctx context.Context, spec sourceSpec) error { return ping(ctx, configure(spec)) },
	}
}

// sourceKinds is the one table of the source kinds this build can open:
// the composition root's explicit registry (there is no registration by
// init). A new adapter is one row here and its three functions.
var sourceKinds = map[config.SourceKind]sourceKind{
	config.KindFiles:    kindOf(filesConfig, openFiles, pingFiles),
	config.KindPostgres: kindOf(postgresConfig, openPostgres, pingPostgres),
}

// pingTimeout bounds doctor's round trip to one source.
const pingTimeout = 5 * time.Second

// filesConfig is the embedded engine's configuration of a files source.
// Files sources run as the service; the configuration holds their posture.
func filesConfig(spec sourceSpec) filesSource {
	return filesSource{
		posture: domain.Posture(spec.source.Posture),
		cfg: engine.Config{Source: spec.alias, Files: os.DirFS(spec.source.DataDir), Models: spec.models,
			WorkingSetMaxBytes: spec.runtime.WorkingSetMaxBytes},
		dir: spec.source.DataDir,
	}
}

type filesSource struct {
	posture domain.Posture
	cfg     engine.Config
	dir     string
}

func openFiles(ctx context.Context, f filesSource) (openedSource, error) {
	eng, err := engine.New(ctx, f.cfg)
	if err != nil {
		return openedSource{}, err
	}
	return openedSource{source: app.Source{System: eng, Posture: f.posture}, close: func() {}}, nil
}

func pingFiles(_ context.Context, f filesSource) error {
	info, err := os.Stat(f.dir)
	if err == nil && !info.IsDir() {
		err = fmt.Errorf("%s is not a directory", f.dir)
	}
	return err
}

// postgresConfig is the adapter's configuration of a postgres source. The
// adapter holds the posture; the opened source reads it from there.
func postgresConfig(spec sourceSpec) postgres.Config {
	src := spec.source
	return postgres.Config{
		Source: spec.alias, Host: src.Host, Port: src.Port, UnixSocket: src.UnixSocket,
		Database: src.Database, User: src.User, Password: src.Password.Reveal(),
		TransportMode: postgres.TransportMode(src.TransportMode), CAFile: src.CAFile,
		CertFile: src.CertFile, KeyFile: src.KeyFile, ServerName: src.TLSServerName,
		Posture: domain.Posture(src.Posture), Impersonate: src.Impersonate,
		VerificationIdentity: src.VerificationIdentity,
		Models:               spec.models, MaxConns: spec.runtime.MaxConcurrentQueries,
	}
}

func openPostgres(ctx context.Context, cfg postgres.Config) (openedSource, error) {
	db, err := postgres.New(ctx, cfg)
	if err != nil {
		return openedSource{}, err
	}
	return openedSource{source: app.Source{System: db, Posture: db.Posture()}, close: db.Close}, nil
}

func pingPostgres(ctx context.Context, cfg postgres.Config) error {
	ctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	cfg.MaxConns = 1
	db, err := postgres.New(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.Ping(ctx)
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

// errNoAdapter is the error of a configured kind this build has no row for.
var errNoAdapter = errors.New("this build has no adapter for this kind of source yet")

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
// the models of b that live on it, in alias order. When one fails, the
// ones already opened are closed before it returns.
func openSources(ctx context.Context, cfg *config.Config, b *domain.Bundle) (*openedSources, error) {
	byAlias := map[string][]domain.Model{}
	for _, m := range b.Definitions().Models {
		byAlias[m.Source] = append(byAlias[m.Source], m)
	}
	o := &openedSources{sources: map[string]app.Source{}}
	if cfg.Demo() {
		eng, err := engine.New(ctx, engine.Config{Source: demo.SourceAlias, Files: demo.Data(), Models: byAlias[demo.SourceAlias],
			WorkingSetMaxBytes: cfg.Runtime.WorkingSetMaxBytes})
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
		opened, err := kind.open(ctx, sourceSpec{alias: alias, source: src, models: byAlias[alias], runtime: cfg.Runtime})
		if err != nil {
			o.close()
			return nil, fmt.Errorf("sources.%s: %w", alias, err)
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
			c.Err = kind.ping(ctx, sourceSpec{alias: alias, source: src, runtime: cfg.Runtime})
		}
		out = append(out, c)
	}
	return out
}
