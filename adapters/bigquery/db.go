package bigquery

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	bq "cloud.google.com/go/bigquery"
	"google.golang.org/api/iterator"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
)

// DB is one bigquery source: a client of the BigQuery API as the service
// account. It is safe for concurrent use.
type DB struct {
	cfg    Config
	client *bq.Client
}

// New returns the source cfg describes. It validates the configuration
// and builds the client without calling the API: the first call
// (Validate or Ping at start, or a question) does, so a service that
// cannot be reached at start is reported by those calls.
func New(ctx context.Context, cfg Config) (*DB, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	opts, err := cfg.clientOptions()
	if err != nil {
		return nil, err
	}
	client, err := bq.NewClient(ctx, cfg.Project, opts...)
	if err != nil {
		if cfg.CredentialsFile == "" {
			return nil, configError(cfg.Source, "credentials_file", "is not set and no Application Default Credentials were found: set it to a service-account key")
		}
		return nil, configError(cfg.Source, "credentials_file", "cannot be used by the BigQuery client")
	}
	return &DB{cfg: cfg, client: client}, nil
}

// Close releases the client.
func (db *DB) Close() { _ = db.client.Close() }

// Source returns the configured source alias.
func (db *DB) Source() string { return db.cfg.Source }

// Posture returns the posture the source's jobs run under: always
// shared-service-user.
func (db *DB) Posture() domain.Posture { return db.cfg.Posture }

// Ping dry-runs SELECT 1: what `sutura doctor` asks to tell whether the
// API can be reached with the credentials and the project lets the
// service account create jobs. A dry run bills nothing. The error is an
// *Error (errors.Is domain.ErrUnavailable when the API cannot be reached)
// or ctx's.
func (db *DB) Ping(ctx context.Context) error {
	ctx, cancel := sqlsource.Budget(ctx, db.cfg.DefaultTimeout)
	defer cancel()
	_, err := db.dryRun(ctx, "SELECT 1", nil)
	return err
}

// Execute runs plan as the service account. It is the app.DataSystem
// port; anchors at start-up come this way. Outcomes are as the package
// documentation states.
func (db *DB) Execute(ctx context.Context, plan *domain.Plan) (*domain.RowSet, error) {
	rs, _, err := db.execute(ctx, plan, false)
	return rs, err
}

// ExecuteWithCost behaves as Execute and also returns the bytes the job
// processed (BigQuery's totalBytesProcessed, what on-demand pricing
// bills) as BytesRead, read from the job's status once it is done (one
// jobs.get more); BigQuery does not report rows scanned. It is the
// app.CostReporter ability; the cost is zero when no job ran or its
// status could not be read.
func (db *DB) ExecuteWithCost(ctx context.Context, plan *domain.Plan) (*domain.RowSet, domain.Cost, error) {
	return db.execute(ctx, plan, true)
}

func (db *DB) execute(ctx context.Context, plan *domain.Plan, measure bool) (*domain.RowSet, domain.Cost, error) {
	st, err := render(ctx, db.cfg.Source, plan)
	if err != nil {
		return nil, domain.Cost{}, err
	}
	rowCap, byteCap := plan.Bounds()
	var rs *domain.RowSet
	cost, err := db.run(ctx, st, rowCap, measure, func(it *bq.RowIterator) error {
		got, err := read(it, plan.Columns, rowCap, byteCap, sqlsource.DetailTooManyRows)
		rs = got
		return err
	})
	if errors.Is(err, errDivisionByZero) {
		return nil, cost, plan.ZeroDenominatorError()
	}
	if err != nil {
		return nil, cost, err
	}
	return rs, cost, nil
}

// cancelTimeout bounds cancelling a job whose question's context ended.
const cancelTimeout = 3 * time.Second

// job is one query job to run: its SQL and its parameters.
type job struct {
	sql    string
	params []bq.QueryParameter
}

// query is the client's query of j with what every job carries: the
// location, the default dataset, maximum_bytes_billed and, when timeout
// is positive, the job's timeout.
func (db *DB) query(j job, timeout time.Duration) *bq.Query {
	q := db.client.Query(j.sql)
	q.JobID = db.jobID()
	q.Parameters = j.params
	q.Location = db.cfg.Location
	q.MaxBytesBilled = db.cfg.MaximumBytesBilled
	q.DefaultProjectID = db.cfg.Project
	q.DefaultDatasetID = db.cfg.Dataset
	if timeout > 0 {
		q.JobTimeout = max(timeout.Truncate(time.Millisecond), time.Millisecond)
	}
	return q
}

// run runs j as one job under the rest of ctx's budget and hands its rows
// (pages of at most rowCap+1 rows) to read. When ctx ends before read
// returns, the job is cancelled. With measure, the cost is what the job's
// status says once it is done. The error is classified.
func (db *DB) run(ctx context.Context, j job, rowCap int, measure bool, read func(*bq.RowIterator) error) (domain.Cost, error) {
	ctx, cancel := sqlsource.Budget(ctx, db.cfg.DefaultTimeout)
	defer cancel()
	dl, _ := ctx.Deadline()
	left := time.Until(dl)
	if left <= 0 || ctx.Err() != nil {
		return domain.Cost{}, db.classify(ctx, context.DeadlineExceeded)
	}
	q := db.query(j, left)
	started, err := q.Run(ctx)
	if err != nil {
		if ctx.Err() != nil {
			// The insert may have reached BigQuery before ctx ended: the job
			// is cancelled by the id it was given.
			db.cancelID(ctx, q.JobID)
		}
		return domain.Cost{}, db.classify(ctx, err)
	}
	err = db.readJob(ctx, started, rowCap, read)
	if ctx.Err() != nil {
		db.cancel(ctx, started)
	}
	cost := jobCost(started.LastStatus())
	if measure && ctx.Err() == nil {
		if st, serr := started.Status(ctx); serr == nil {
			cost = jobCost(st)
		}
	}
	return cost, db.classify(ctx, err)
}

func (db *DB) readJob(ctx context.Context, started *bq.Job, rowCap int, read func(*bq.RowIterator) error) error {
	if st := started.LastStatus(); st != nil && st.Err() != nil {
		return st.Err()
	}
	it, err := started.Read(ctx)
	if err != nil {
		return err
	}
	it.PageInfo().MaxSize = rowCap + 1
	return read(it)
}

// cancel asks BigQuery to cancel job, with a context of its own (ctx has
// ended), waiting at most cancelTimeout. A failure is ignored: the job's
// own timeout stops it at the latest.
func (db *DB) cancel(ctx context.Context, j *bq.Job) {
	cctx, stop := context.WithTimeout(context.WithoutCancel(ctx), cancelTimeout)
	defer stop()
	_ = j.Cancel(cctx)
}

// cancelID cancels the job with id, which may or may not exist (its
// insert was interrupted), as cancel does.
func (db *DB) cancelID(ctx context.Context, id string) {
	cctx, stop := context.WithTimeout(context.WithoutCancel(ctx), cancelTimeout)
	defer stop()
	if j, err := db.client.JobFromIDLocation(cctx, id, db.cfg.Location); err == nil {
		_ = j.Cancel(cctx)
	}
}

// jobID is a fresh job id: sutura_, the source alias and 12 random bytes
// in hex, so an operator can tell sutura's jobs in the project's job
// history, and a job whose insert was interrupted can still be cancelled.
func (db *DB) jobID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return "sutura_" + db.cfg.Source + "_" + hex.EncodeToString(b)
}

// jobCost is what the job status st says it processed.
func jobCost(st *bq.JobStatus) domain.Cost {
	if st == nil || st.Statistics == nil {
		return domain.Cost{}
	}
	return domain.Cost{BytesRead: st.Statistics.TotalBytesProcessed}
}

// dryRun dry-runs j: BigQuery parses and plans the statement, checks every
// permission it needs and says what it would process, without running it
// or billing anything. It returns the query's statistics.
func (db *DB) dryRun(ctx context.Context, sql string, params []bq.QueryParameter) (*bq.QueryStatistics, error) {
	q := db.query(job{sql: sql, params: params}, 0)
	q.DryRun = true
	started, err := q.Run(ctx)
	if err == nil {
		if st := started.LastStatus(); st != nil && st.Err() != nil {
			err = st.Err()
		}
	}
	if err != nil {
		return nil, db.classify(ctx, err)
	}
	st := started.LastStatus()
	if st == nil || st.Statistics == nil {
		return &bq.QueryStatistics{}, nil
	}
	qs, _ := st.Statistics.Details.(*bq.QueryStatistics)
	if qs == nil {
		qs = &bq.QueryStatistics{}
	}
	qs.TotalBytesProcessed = max(qs.TotalBytesProcessed, st.Statistics.TotalBytesProcessed)
	return qs, nil
}

// EstimateBytes dry-runs plan and returns the bytes BigQuery says the job
// would process (totalBytesProcessed), without running it or billing
// anything: the estimate of docs/contract.md §15 for BigQuery.
func (db *DB) EstimateBytes(ctx context.Context, plan *domain.Plan) (int64, error) {
	st, err := render(ctx, db.cfg.Source, plan)
	if err != nil {
		return 0, err
	}
	ctx, cancel := sqlsource.Budget(ctx, db.cfg.DefaultTimeout)
	defer cancel()
	qs, err := db.dryRun(ctx, st.sql, st.params)
	if err != nil {
		return 0, err
	}
	return qs.TotalBytesProcessed, nil
}

// rows is a RowIterator as sqlsource.Read reads it.
type rows struct {
	it  *bq.RowIterator
	row []bq.Value
	err error
}

func (r *rows) Next() bool {
	r.row = r.row[:0]
	err := r.it.Next(&r.row)
	if errors.Is(err, iterator.Done) {
		return false
	}
	if err != nil {
		r.err = err
		return false
	}
	return true
}

func (r *rows) Scan(out []domain.Cell) error {
	if len(r.row) != len(out) {
		return fmt.Errorf("a row has %d values, the result %d columns", len(r.row), len(out))
	}
	for i, v := range r.row {
		c, err := cell(v)
		if err != nil {
			return fmt.Errorf("column %d: %w", i+1, err)
		}
		out[i] = c
	}
	return nil
}

func (r *rows) Err() error { return r.err }

// read reads it as canonical cells: columns are plan's, or (plan nil)
// named after the result's fields.
func read(it *bq.RowIterator, plan []domain.Column, rowCap, byteCap int, tooMany string) (*domain.RowSet, error) {
	names := make([]string, len(it.Schema))
	for i, f := range it.Schema {
		names[i] = f.Name
	}
	columns, err := sqlsource.Columns(plan, names)
	if err != nil {
		return nil, err
	}
	return sqlsource.Read(&rows{it: it}, columns, rowCap, byteCap, tooMany)
}

// Estimate is EstimateBytes as the application's estimator port takes it
// (docs/contract.md §15): a dry run's totalBytesProcessed is a known
// estimate; a dry run that fails leaves the estimate unknown and returns
// its error, which the application reads as unknown.
func (db *DB) Estimate(ctx context.Context, plan *domain.Plan) (bytes int64, known bool, err error) {
	n, err := db.EstimateBytes(ctx, plan)
	if err != nil {
		return 0, false, err
	}
	return n, true, nil
}
