package compose

import (
	"context"
	"errors"
	"os"
	"slices"
	"time"

	"sutura.dev/adapters/postgres"
	"sutura.dev/cli/internal/config"
	"sutura.dev/domain"
)

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
	aliases := make([]string, 0, len(cfg.Sources))
	for a := range cfg.Sources {
		aliases = append(aliases, a)
	}
	slices.Sort(aliases)
	var out []SourceCheck
	for _, alias := range aliases {
		src := cfg.Sources[alias]
		c := SourceCheck{Alias: alias, Kind: src.Kind}
		switch src.Kind {
		case config.KindFiles:
			_, c.Err = os.Stat(src.DataDir)
		case config.KindPostgres:
			c.Err = pingPostgres(ctx, alias, src)
		default:
			c.Err = errors.New("this build has no adapter for this kind of source yet")
		}
		out = append(out, c)
	}
	return out
}

func pingPostgres(ctx context.Context, alias string, src config.Source) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	db, err := postgres.New(ctx, postgresConfig(alias, src, nil, 1))
	if err != nil {
		return err
	}
	defer db.Close()
	return db.Ping(ctx)
}

// postgresConfig is the adapter's configuration of source alias.
func postgresConfig(alias string, src config.Source, models []domain.Model, maxConns int) postgres.Config {
	return postgres.Config{
		Source: alias, Host: src.Host, Port: src.Port, UnixSocket: src.UnixSocket,
		Database: src.Database, User: src.User, Password: src.Password.Reveal(),
		TransportMode: postgres.TransportMode(src.TransportMode), CAFile: src.CAFile,
		CertFile: src.CertFile, KeyFile: src.KeyFile, ServerName: src.TLSServerName,
		Posture: domain.Posture(src.Posture), Impersonate: src.Impersonate,
		VerificationIdentity: src.VerificationIdentity,
		Models:               models, MaxConns: maxConns,
	}
}
