package clickhouse

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync/atomic"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
)

// DB is one clickhouse source: a pool of native-protocol connections as
// the service user and the posture its legs run under. It is safe for
// concurrent use.
type DB struct {
	cfg  Config
	ids  *sqlsource.Identities
	conn driver.Conn
	srv  atomic.Pointer[Server]
}

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
	tc, err := cfg.network().TLSConfig()
	if err != nil {
		return nil, err
	}
	conn, err := ch.Open(&ch.Options{
		Protocol: ch.Native,
		Addr:     []string{cfg.addr()},
		Auth:     ch.Auth{Database: cfg.Database, Username: cfg.User, Password: string(cfg.Password)},
		TLS:      tc,
		ClientInfo: ch.ClientInfo{Products: []struct{ Name, Version string }{
			{Name: "sutura-" + cfg.Source, Version: ""},
		}},
		DialTimeout: cfg.ConnectTimeout,
		// The driver is handed no deadline (see run); the call's context
		// ends the statement, and this bounds only a server that stops
		// answering altogether.
		ReadTimeout: readTimeout,
		// One connection more than questions may use at once, so stopping a
		// statement (KILL QUERY) never waits behind the questions.
		MaxOpenConns:     cfg.MaxConns + 1,
		MaxIdleConns:     cfg.MaxConns + 1,
		ConnMaxLifetime:  30 * time.Minute,
		ConnOpenStrategy: ch.ConnOpenInOrder,
		// The driver logs server exceptions with their text and warns about
		// servers older than it was tested with; nothing of it may reach
		// sutura's log, which has its own fixed sentences.
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		return nil, fmt.Errorf("clickhouse source %s: the connection pool cannot be built", cfg.Source)
	}
	return &DB{cfg: cfg, ids: cfg.identities(), conn: conn}, nil
}

// Close closes every connection of the pool.
func (db *DB) Close() { _ = db.conn.Close() }

// Source returns the configured source alias.
func (db *DB) Source() string { return db.cfg.Source }

// Posture returns the posture the source's legs run under.
func (db *DB) Posture() domain.Posture { return db.cfg.Posture }

// Ping connects (or takes a pooled connection) and asks the server for its
// version: what `sutura doctor` asks to tell whether the source can be
// reached. The error is an *Error (errors.Is domain.ErrUnavailable when
// the server cannot be reached) or ctx's.
func (db *DB) Ping(ctx context.Context) error {
	db.srv.Store(nil)
	_, err := db.Server(ctx)
	return err
}

// Execute runs plan as the source's own identity: the service user under
// shared-service-user, Config.VerificationIdentity under
// impersonation-at-source (refused as credential_unavailable when none is
// configured). It is the app.DataSystem port; anchors at start-up come this
// way. Outcomes are as the package documentation states.
func (db *DB) Execute(ctx context.Context, plan *domain.Plan) (*domain.RowSet, error) {
	rs, _, err := db.ExecuteWithCost(ctx, plan)
	return rs, err
}

// ExecuteWithCost behaves as Execute and also returns what the server
// reported reading for this statement alone: the rows and bytes of its
// progress packets (ClickHouse's read_rows and read_bytes), summed. It is
// the app.CostReporter ability. The cost is what was read until the
// statement stopped, also when the error is not nil.
func (db *DB) ExecuteWithCost(ctx context.Context, plan *domain.Plan) (*domain.RowSet, domain.Cost, error) {
	user, err := db.ownUser()
	if err != nil {
		return nil, domain.Cost{}, err
	}
	return db.execute(ctx, user, plan)
}

// ExecuteAs runs plan for principal: as the service user under
// shared-service-user, and under impersonation-at-source as the
// ClickHouse user Config.Impersonate maps principal.Subject to (EXECUTE
// AS). A subject with no user is refused as credential_unavailable before
// the server is asked; there is no fallback to the service user.
func (db *DB) ExecuteAs(ctx context.Context, principal domain.Principal, plan *domain.Plan) (*domain.RowSet, error) {
	user, err := db.userOf(principal)
	if err != nil {
		return nil, err
	}
	rs, _, err := db.execute(ctx, user, plan)
	return rs, err
}

// ownUser is the user of a call without a caller ("" is the service user).
func (db *DB) ownUser() (string, error) { return db.ids.Own() }

// userOf is the user principal's legs run as ("" is the service user).
func (db *DB) userOf(p domain.Principal) (string, error) { return db.ids.Of(p) }

func (db *DB) execute(ctx context.Context, user string, plan *domain.Plan) (*domain.RowSet, domain.Cost, error) {
	if err := sqlsource.Leg("clickhouse", db.cfg.Source, plan); err != nil {
		return nil, domain.Cost{}, err
	}
	rowCap, byteCap := plan.Bounds()
	ctx, cancel := sqlsource.Budget(ctx, db.cfg.DefaultTimeout)
	defer cancel()
	srv, err := db.Server(ctx)
	if err != nil {
		return nil, domain.Cost{}, err
	}
	if n := len(plan.Legs[0].Joins); n > 1 && !srv.MultipleJoins() {
		return nil, domain.Cost{}, refusal(domain.FederationNotExecutable,
			"ClickHouse %s at source %s cannot run a statement with more than one join (ClickHouse 20.1 and later can); ask without dimensions reached through several relationships",
			srv.Version, db.cfg.Source)
	}
	st, err := render(plan, srv, user)
	if err != nil {
		return nil, domain.Cost{}, fmt.Errorf("clickhouse source %s: %w", db.cfg.Source, err)
	}
	st.sql += sqlsource.TraceComment(ctx)
	rd := reader{rowCap: rowCap, byteCap: byteCap, columns: plan.Columns, bools: booleanColumns(plan), tooMany: sqlsource.DetailTooManyRows}
	var rs *domain.RowSet
	cost, err := db.run(ctx, st, func(rows driver.Rows) error {
		got, err := rd.read(rows)
		rs = got
		return err
	})
	if hasCode(err, codeThrowIf) {
		return nil, cost, zeroDenominator(plan)
	}
	if err != nil {
		return nil, cost, err
	}
	return rs, cost, nil
}

// killTimeout bounds stopping a statement whose context ended.
const killTimeout = 3 * time.Second

// readTimeout bounds one statement's reading when its context does not
// end it first: longer than any budget (server.request_timeout_seconds is
// at most 300).
const readTimeout = 15 * time.Minute

// run runs st with what every statement carries (a query id of its own,
// readonly = 1, max_execution_time from the rest of ctx's budget) and
// hands its rows to read. A statement whose connection broke before read
// returned is run once more on a fresh connection: it only reads, so
// running it twice is harmless, and a restarted server then answers the
// first question after it is back. The error is classified; the cost sums
// both runs.
func (db *DB) run(ctx context.Context, st statement, read func(driver.Rows) error) (domain.Cost, error) {
	var cost domain.Cost
	err := db.runOnce(ctx, st, read, &cost)
	if err != nil && retryable(err) && ctx.Err() == nil {
		db.srv.Store(nil) // the server may have been replaced by another version
		err = db.runOnce(ctx, st, read, &cost)
	}
	return cost, err
}

func (db *DB) runOnce(ctx context.Context, st statement, read func(driver.Rows) error, cost *domain.Cost) error {
	src := db.cfg.Source
	dl, _ := ctx.Deadline()
	left := time.Until(dl)
	if left <= 0 || ctx.Err() != nil {
		return classify(ctx, src, st.user != "", context.DeadlineExceeded)
	}
	id := tracedQueryID(ctx)
	var rows, bytes atomic.Uint64
	// The driver gets the call's cancellation but not its deadline: given
	// a deadline, it overrides max_execution_time with the deadline plus
	// five seconds, and sets it on the socket, where a timeout can end the
	// read before the driver cancels the statement. The context ending,
	// deadline or not, cancels dctx instead, and the statement is then
	// stopped by its id.
	dctx, dcancel := context.WithCancel(context.WithoutCancel(ctx))
	defer dcancel()
	defer context.AfterFunc(ctx, dcancel)()
	qctx := ch.Context(dctx,
		ch.WithQueryID(id),
		ch.WithSettings(db.settings(left)),
		ch.WithProgress(func(p *ch.Progress) {
			rows.Add(p.Rows)
			bytes.Add(p.Bytes)
		}),
	)
	err := db.query(qctx, st, read)
	cost.RowsScanned += clampInt64(rows.Load())
	cost.BytesRead += clampInt64(bytes.Load())
	if ctx.Err() != nil {
		// The driver cancels a statement whose context was cancelled, but
		// not always one whose deadline passed (it may first see its
		// socket time out): stop it by its id either way, so nothing keeps
		// running at the server.
		db.kill(ctx, id)
	}
	return classify(ctx, src, st.user != "", err)
}

func (db *DB) query(ctx context.Context, st statement, read func(driver.Rows) error) error {
	rows, err := db.conn.Query(ctx, st.sql, st.args...)
	if err != nil {
		return err
	}
	// The statement's LIMIT leaves at most one row to drain.
	defer rows.Close()
	if err := read(rows); err != nil {
		return err
	}
	return rows.Close()
}

// settings are the per-statement settings: read-only, and the server's own
// limit on the statement's time, whole seconds rounded up (ClickHouse
// before 19 takes integers only) so that it never fires before the
// context's deadline, at which the statement is stopped anyway.
func (db *DB) settings(left time.Duration) ch.Settings {
	s := ch.Settings{
		"readonly":           1,
		"max_execution_time": max(int(math.Ceil(left.Seconds())), 1),
		// The clickhouse dialect's statements say SETTINGS join_use_nulls =
		// 1; readonly = 1 refuses a SETTINGS clause unless it sets what is
		// already set.
		"join_use_nulls": 1,
	}
	if srv := db.srv.Load(); srv != nil && srv.sessionTimezone() {
		// Timestamps bucket by their UTC date, as in the engine.
		s["session_timezone"] = "UTC"
	}
	return s
}

// kill stops the statement with query id id at the server and waits (at
// most killTimeout) until it has stopped. The id is bound by the driver;
// a failure is ignored: the statement's own max_execution_time stops it
// at the latest.
func (db *DB) kill(ctx context.Context, id string) {
	kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), killTimeout)
	defer cancel()
	_ = db.conn.Exec(kctx, "KILL QUERY WHERE query_id = ? SYNC", id)
}

// queryID is a fresh query id: sutura- and 16 random bytes in hex.
func queryID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return "sutura-" + hex.EncodeToString(b)
}

func clampInt64(v uint64) int64 {
	if v > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(v)
}

// booleanColumns marks the plan's dimension columns declared boolean, so
// that a UInt8 column reads as true and false.
func booleanColumns(plan *domain.Plan) []bool {
	out := make([]bool, len(plan.Columns))
	leg := plan.Legs[0]
	tables := map[string]domain.Table{leg.Base.Alias: leg.Base}
	for _, j := range leg.Joins {
		tables[j.To.Alias] = j.To
	}
	for i, d := range leg.Dimensions {
		for _, c := range tables[d.Column.Alias].Columns {
			if c.Name == d.Column.Column && c.Type == domain.TypeBoolean && i < len(out) {
				out[i] = true
			}
		}
	}
	return out
}

// quoteIdent quotes a name as a ClickHouse identifier.
func quoteIdent(s string) string {
	return "`" + strings.NewReplacer(`\`, `\\`, "`", "\\`").Replace(s) + "`"
}
