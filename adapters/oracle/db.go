package oracle

import (
	"context"
	"crypto/tls"
	"database/sql"
	"database/sql/driver"
	"errors"
	"net"
	"sync"
	"time"

	go_ora "github.com/sijms/go-ora/v2"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// DB is one oracle source: a pool of connections as the service user (and,
// under impersonation-at-source, a small pool per proxy client) and the
// posture its legs run under. It is safe for concurrent use.
type DB struct {
	cfg Config
	ids *sqlsource.Identities
	tc  *tls.Config

	mu    sync.Mutex
	pools map[string]*sql.DB // by proxy client; "" is the service user
}

// clientConns bounds the pool of one proxy client.
const clientConns = 2

// New returns the source cfg describes. It validates the configuration and
// builds the pool without connecting: the first call (Validate or Ping at
// start, or a question) connects, so a server that is down at start is
// reported by those calls, and a source opened while its server is down
// answers as soon as it is back.
func New(ctx context.Context, cfg Config) (*DB, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	tc, err := cfg.tlsConfig()
	if err != nil {
		return nil, err
	}
	return &DB{cfg: cfg, ids: cfg.identities(), tc: tc, pools: map[string]*sql.DB{}}, nil
}

// pool is the pool of connections as client ("" for the service user),
// made at its first use.
func (db *DB) pool(client string) *sql.DB {
	db.mu.Lock()
	defer db.mu.Unlock()
	if p, ok := db.pools[client]; ok {
		return p
	}
	url := go_ora.BuildUrl(db.cfg.host(), db.cfg.Port, db.cfg.Service, db.cfg.User, string(db.cfg.Password), db.cfg.options(client))
	connector := go_ora.NewConnector(url).(*go_ora.OracleConnector)
	if db.cfg.WalletDir == "" {
		timeout := db.cfg.ConnectTimeout
		connector.Dialer(dialer{tc: db.tc, timeout: func() net.Dialer { return net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second} }})
	}
	p := sql.OpenDB(connector)
	conns := db.cfg.MaxConns
	if client != "" {
		conns = min(conns, clientConns)
	}
	p.SetMaxOpenConns(conns)
	p.SetMaxIdleConns(conns)
	p.SetConnMaxLifetime(30 * time.Minute)
	db.pools[client] = p
	return p
}

// Close closes every connection of every pool.
func (db *DB) Close() {
	db.mu.Lock()
	defer db.mu.Unlock()
	for _, p := range db.pools {
		_ = p.Close()
	}
	db.pools = map[string]*sql.DB{}
}

// Source returns the configured source alias.
func (db *DB) Source() string { return db.cfg.Source }

// Posture returns the posture the source's legs run under.
func (db *DB) Posture() domain.Posture { return db.cfg.Posture }

// Ping connects (or takes a pooled connection) as the service user and
// runs the read-only transaction's setup: what `sutura doctor` asks to
// tell whether the source can be reached. The error is an *Error
// (errors.Is domain.ErrUnavailable when the server cannot be reached) or
// ctx's.
func (db *DB) Ping(ctx context.Context) error {
	return db.run(ctx, "", func(context.Context, *sql.Tx) error { return nil })
}

// Execute runs plan as the source's own identity: the service user under
// shared-service-user, Config.VerificationIdentity (through a proxy
// connection) under impersonation-at-source, refused as
// credential_unavailable when none is configured. It is the app.DataSystem
// port; anchors at start-up come this way.
func (db *DB) Execute(ctx context.Context, plan *domain.Plan) (*domain.RowSet, error) {
	client, err := db.ids.Own()
	if err != nil {
		return nil, err
	}
	return db.execute(ctx, client, plan)
}

// ExecuteAs runs plan for principal: as the service user under
// shared-service-user, and under impersonation-at-source as the database
// user Config.Impersonate maps principal.Subject to, through a proxy
// connection. A subject with no user is refused as credential_unavailable
// before the server is asked; there is no fallback to the service user.
func (db *DB) ExecuteAs(ctx context.Context, principal domain.Principal, plan *domain.Plan) (*domain.RowSet, error) {
	client, err := db.ids.Of(principal)
	if err != nil {
		return nil, err
	}
	return db.execute(ctx, client, plan)
}

func (db *DB) execute(ctx context.Context, client string, plan *domain.Plan) (*domain.RowSet, error) {
	query, args, err := sqlsource.Render(ctx, "oracle", db.cfg.Source, plan, semantic.Oracle)
	if err != nil {
		return nil, err
	}
	args = binds(args)
	rowCap, byteCap := plan.Bounds()
	types := declaredTypes(plan)
	var rs *domain.RowSet
	err = db.run(ctx, client, func(ctx context.Context, tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, query, args...)
		if err != nil {
			return err
		}
		// The statement's FETCH FIRST leaves at most one row to drain.
		defer rows.Close()
		got, err := readRows(rows, types, plan.Columns, rowCap, byteCap, sqlsource.DetailTooManyRows)
		rs = got
		return err
	})
	if errors.Is(err, errDivisionByZero) {
		return nil, plan.ZeroDenominatorError()
	}
	if err != nil {
		return nil, err
	}
	return rs, nil
}

// run calls fn inside a READ ONLY transaction on a connection as client
// ("" for the service user), under the rest of ctx's budget
// (Config.DefaultTimeout when ctx has no deadline); the transaction is
// always rolled back. A connection whose call ctx ended is discarded
// rather than given back: its break may still be on the wire. The error
// is classified.
//
// A pooled connection found broken before the statement was sent (the
// server restarted since it was opened) is discarded and the call made
// once more on a fresh one; a call whose statement was sent is not
// repeated.
func (db *DB) run(ctx context.Context, client string, fn func(context.Context, *sql.Tx) error) error {
	ctx, cancel := sqlsource.Budget(ctx, db.cfg.DefaultTimeout)
	defer cancel()
	sent, err := db.runOnce(ctx, client, fn)
	var e *Error
	if err != nil && !sent && ctx.Err() == nil && errors.As(err, &e) && e.Unavailable() && e.Code == "" {
		_, err = db.runOnce(ctx, client, fn)
	}
	return err
}

// runOnce is one attempt of run; sent reports whether fn was called.
func (db *DB) runOnce(ctx context.Context, client string, fn func(context.Context, *sql.Tx) error) (sent bool, err error) {
	src, proxied := db.cfg.Source, client != ""
	if dl, _ := ctx.Deadline(); time.Until(dl) <= 0 || ctx.Err() != nil {
		return false, classify(ctx, src, proxied, context.DeadlineExceeded)
	}
	conn, err := db.pool(client).Conn(ctx)
	if err != nil {
		return false, classify(ctx, src, proxied, err)
	}
	defer conn.Close()
	sent, err = db.transaction(ctx, conn, fn)
	err = classify(ctx, src, proxied, err)
	var e *Error
	if ctx.Err() != nil || errors.As(err, &e) && e.Unavailable() {
		// Its break may still be on the wire, or it is broken: not reused.
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	}
	return sent, err
}

func (db *DB) transaction(ctx context.Context, conn *sql.Conn, fn func(context.Context, *sql.Tx) error) (sent bool, err error) {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	// ROLLBACK with a context of its own: ctx may have ended, and the
	// transaction only read.
	defer func() { _ = tx.Rollback() }()
	// The first statement of the transaction, so every statement after it
	// reads one snapshot and none may write.
	if _, err := tx.ExecContext(ctx, "SET TRANSACTION READ ONLY"); err != nil {
		return false, err
	}
	return true, fn(ctx, tx)
}

// binds are the statement's arguments as go-ora binds them: a date (a
// time.Time at midnight UTC) as a TIMESTAMP without a time zone
// (go_ora.TimeStamp), since go-ora binds a time.Time as TIMESTAMP WITH TIME
// ZONE, and comparing a DATE column with that converts the column in the
// session's time zone, which would move every range boundary by the
// session's offset from UTC. Text stays text.
func binds(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		if t, ok := a.(time.Time); ok {
			a = go_ora.TimeStamp(t)
		}
		out[i] = a
	}
	return out
}

// declaredTypes are the declared types of plan's columns where the plan
// knows them: the period is a date; a dimension has its column's declared
// type; any other column is domain.TypeUnset.
func declaredTypes(plan *domain.Plan) []domain.ColumnType {
	out := make([]domain.ColumnType, len(plan.Columns))
	leg := plan.Legs[0]
	tables := map[string]domain.Table{leg.Base.Alias: leg.Base}
	for _, j := range leg.Joins {
		tables[j.To.Alias] = j.To
	}
	typeOf := func(ref domain.ColumnRef) domain.ColumnType {
		for _, c := range tables[ref.Alias].Columns {
			if c.Name == ref.Column {
				return c.Type
			}
		}
		return domain.TypeUnset
	}
	for i, c := range plan.Columns {
		if c.Role == domain.RolePeriod {
			out[i] = domain.TypeDate
			continue
		}
		for _, d := range leg.Dimensions {
			if d.Name == c.Name {
				out[i] = typeOf(d.Column)
			}
		}
	}
	return out
}

// quoteIdent quotes a name as an Oracle identifier (case-sensitive, as
// the dialect writes them).
func quoteIdent(s string) string { return `"` + s + `"` }
