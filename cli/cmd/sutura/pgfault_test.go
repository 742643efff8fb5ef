package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	mdcatalog "sutura.dev/adapters/catalog-markdown"
	"sutura.dev/adapters/postgres"
	"sutura.dev/adapters/postgres/pgtest"
	"sutura.dev/app"
	"sutura.dev/app/apptest"
	"sutura.dev/domain"
	"sutura.dev/examples/demo"
	"sutura.dev/runtime"
)

// pgScript runs scripts/pg with args and returns its standard output.
func pgScript(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("../../../scripts/pg", args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "scripts/pg %s: %s", strings.Join(args, " "), stderr.String())
	return string(out)
}

// TestPostgresDiesUnderLoad (issue 28, fault suite): 32 callers ask the
// demo through the application's surface over a PostgreSQL cluster of the
// test's own, which is stopped mid-load and started again. While it is
// down every question ends promptly as unavailable (no other failure);
// once it is back, answers resume without a new source or surface; no
// goroutine is left behind; and every question that returned has exactly
// one audit record. It stops only its own cluster.
func TestPostgresDiesUnderLoad(t *testing.T) {
	pgtest.URL(t) // where the postgres tier runs
	cmd := exec.Command("../../../scripts/pg", "start")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil && !pgtest.Tier.Required() {
		t.Skipf("NOT RUN: postgres, a cluster of the test's own (scripts/pg start: %v: %s)", err, stderr.String())
	}
	require.NoError(t, err, "scripts/pg start: %s", stderr.String())
	vars := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		k, v, _ := strings.Cut(strings.TrimPrefix(line, "export "), "=")
		vars[k] = strings.Trim(v, "'")
	}
	dir := vars["SUTURA_PG_DIR"]
	require.NotEmpty(t, dir)
	t.Cleanup(func() { pgScript(t, "stop", dir) })
	t.Setenv("SUTURA_PG_URL", vars["SUTURA_PG_URL"])

	b, err := mdcatalog.Load(demo.Catalog(), demo.Version)
	require.NoError(t, err)
	models := b.Definitions().Models
	d := pgtest.New(t) // on the cluster of its own
	d.Load(t, demo.Data(), models)
	cfg := d.Config(demo.SourceAlias, models)
	cfg.MaxConns = 8
	db, err := postgres.New(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(db.Close)
	adm, err := runtime.NewAdmission(runtime.AdmissionConfig{MaxConcurrent: 8, Timeout: 30 * time.Second})
	require.NoError(t, err)
	audit := &apptest.Audit{}
	s, err := app.New(app.Config{
		Catalog: fixedCatalog{b}, Admission: adm, Audit: audit, RequestTimeout: time.Minute,
		Sources: map[string]app.Source{demo.SourceAlias: {System: db, Posture: domain.SharedServiceUser}},
		Now:     func() time.Time { return time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC) },
	})
	require.NoError(t, err)
	q, err := domain.ParseQuestion([]byte(`{"metrics":["net_sales"],"grain":"month","range":{"start":"2025-01-01","end":"2026-01-01"},"dimensions":["channel"]}`))
	require.NoError(t, err)
	ask := func() (time.Duration, error) {
		start := time.Now()
		_, err := s.Answer(context.Background(), app.Caller{Principal: domain.LocalOperator}, q)
		return time.Since(start), err
	}
	for range 8 { // the pool's connections exist
		_, err := ask()
		require.NoError(t, err)
	}
	time.Sleep(200 * time.Millisecond)
	before := goruntime.NumGoroutine()

	const callers = 32
	type result struct {
		start, end time.Time
		err        error
		phase      int // 0 up, 1 down, 2 back: when it was asked
	}
	var (
		mu      sync.Mutex
		results []result
		phase   int
		stop    = make(chan struct{})
		wg      sync.WaitGroup
	)
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				mu.Lock()
				p := phase
				mu.Unlock()
				start := time.Now()
				_, err := ask()
				mu.Lock()
				results = append(results, result{start: start, end: time.Now(), err: err, phase: p})
				mu.Unlock()
				time.Sleep(10 * time.Millisecond) // a caller, not a spin: the machine is shared
			}
		}()
	}
	time.Sleep(500 * time.Millisecond)
	pgScript(t, "down", dir)
	downAt := time.Now() // the server is stopped
	mu.Lock()
	phase = 1
	mu.Unlock()
	time.Sleep(2 * time.Second)
	upAt := time.Now() // the server is still stopped
	pgScript(t, "up", dir)
	mu.Lock()
	phase = 2
	mu.Unlock()
	// Answers resume: wait for 32 answers asked after the restart.
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, r := range results {
			if r.phase == 2 && r.err == nil {
				n++
			}
		}
		return n >= callers
	}, 30*time.Second, 50*time.Millisecond, "answers resume after the restart")
	close(stop)
	wg.Wait()

	// While the server is stopped (asked after it stopped, ended before it
	// was started again) every question is unavailable, promptly; around
	// the stop and the start a question may be either; no question fails
	// in any other way.
	tally := map[string]int{}
	var slowest time.Duration
	for _, r := range results {
		unavailable := errors.Is(r.err, domain.ErrUnavailable)
		var f *app.Failure
		if errors.As(r.err, &f) && f.Code == app.CodeUnavailable {
			unavailable = true
		}
		whileDown := r.start.After(downAt) && r.end.Before(upAt)
		switch {
		case r.err == nil:
			tally[fmt.Sprintf("phase %d answer", r.phase)]++
			assert.False(t, whileDown, "an answer while the server was stopped")
		case unavailable:
			tally[fmt.Sprintf("phase %d unavailable", r.phase)]++
			if whileDown {
				slowest = max(slowest, r.end.Sub(r.start))
			}
		default:
			t.Errorf("phase %d: a failure other than unavailable: %v", r.phase, r.err)
		}
	}
	t.Logf("%d questions: %v; slowest unavailable while down: %v", len(results), tally, slowest)
	assert.Positive(t, tally["phase 1 unavailable"], "questions asked while the database is down are unavailable")
	assert.Less(t, slowest, 5*time.Second, "unavailable promptly")

	// No connection left behind: the source holds at most its pool.
	var backends int
	admin, err := pgx.Connect(context.Background(), vars["SUTURA_PG_URL"])
	require.NoError(t, err)
	defer admin.Close(context.Background())
	require.NoError(t, admin.QueryRow(context.Background(),
		"SELECT count(*) FROM pg_stat_activity WHERE application_name = $1", "sutura/"+demo.SourceAlias).Scan(&backends))
	assert.LessOrEqual(t, backends, cfg.MaxConns, "backends of the source after the load")
	t.Logf("backends of the source after the load: %d (pool of %d)", backends, cfg.MaxConns)

	// One audit record per question that returned.
	recs := audit.Records()
	assert.Len(t, recs, len(results)+8, "one audit record per question (and the 8 warm-up ones)")
	outcomes := map[string]int{}
	for _, r := range recs {
		outcomes[r.Outcome]++
	}
	t.Logf("audit outcomes: %v", outcomes)

	// No goroutine left behind once the callers are gone.
	var after int
	assert.Eventually(t, func() bool {
		after = goruntime.NumGoroutine()
		return after <= before+4
	}, 10*time.Second, 100*time.Millisecond, "goroutines before %d, after %d", before, after)
	t.Logf("goroutines: %d before the load, %d after", before, after)
}
