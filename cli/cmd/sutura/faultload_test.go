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

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/apptest"
	"sutura.dev/domain"
	"sutura.dev/examples/demo"
	"sutura.dev/runtime"
)

// The fault suite's load (issue 28): callers ask while a data system is
// stopped and started again, and the results are judged by one rule for
// every data system. docs/operations.md describes the promise.

// faultResult is one question of the load: when it was asked and ended,
// how it ended, and in which phase of the fault it was asked (0 the data
// system up, 1 stopped, 2 started again).
type faultResult struct {
	start, end time.Time
	err        error
	phase      int
}

// faultLoad is a load run through a fault: its questions, and when the
// data system was stopped (downAt, once down returned) and when it was
// about to be started again (upAt, still stopped).
type faultLoad struct {
	results      []faultResult
	downAt, upAt time.Time
}

// underFault runs callers goroutines asking ask (each pausing 10 ms
// between questions: callers, not a spin, on a shared machine), stops the
// data system with down after half a second, keeps it stopped for two
// seconds, starts it with up, and waits (up to 30 s) until callers answers
// asked after the start have come back; then it stops the callers and
// waits for them.
func underFault(t *testing.T, callers int, ask func() error, down, up func()) faultLoad {
	t.Helper()
	var (
		mu    sync.Mutex
		load  faultLoad
		phase int
		stop  = make(chan struct{})
		wg    sync.WaitGroup
	)
	setPhase := func(p int) {
		mu.Lock()
		phase = p
		mu.Unlock()
	}
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
				err := ask()
				mu.Lock()
				load.results = append(load.results, faultResult{start: start, end: time.Now(), err: err, phase: p})
				mu.Unlock()
				time.Sleep(10 * time.Millisecond)
			}
		}()
	}
	time.Sleep(500 * time.Millisecond)
	down()
	downAt := time.Now() // the server is stopped
	setPhase(1)
	time.Sleep(2 * time.Second)
	upAt := time.Now() // the server is still stopped
	up()
	setPhase(2)
	resumed := assert.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, r := range load.results {
			if r.phase == 2 && r.err == nil {
				n++
			}
		}
		return n >= callers
	}, 30*time.Second, 50*time.Millisecond, "answers resume after the restart")
	close(stop)
	wg.Wait()
	load.downAt, load.upAt = downAt, upAt
	if !resumed {
		t.FailNow()
	}
	return load
}

// check judges the load: while the data system was stopped (a question
// asked after it stopped and ended before it was started again) every
// question is unavailable, within five seconds; around the stop and the
// start a question may be either; no question fails in any other way; and
// some questions were asked while it was stopped. It returns the tally of
// outcomes by phase, for the log.
func (l faultLoad) check(t *testing.T) map[string]int {
	t.Helper()
	tally := map[string]int{}
	var slowest time.Duration
	for _, r := range l.results {
		unavailable := errors.Is(r.err, domain.ErrUnavailable)
		var f *app.Failure
		if errors.As(r.err, &f) && f.Code == app.CodeUnavailable {
			unavailable = true
		}
		whileDown := r.start.After(l.downAt) && r.end.Before(l.upAt)
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
	t.Logf("%d questions: %v; slowest unavailable while down: %v", len(l.results), tally, slowest)
	assert.Positive(t, tally["phase 1 unavailable"], "questions asked while the data system is down are unavailable")
	assert.Less(t, slowest, 5*time.Second, "unavailable promptly")
	return tally
}

// faultScript runs one of the repository's scripts (scripts/pg, scripts/ch)
// with args and returns its standard output.
func faultScript(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := tryFaultScript(name, args...)
	require.NoError(t, err)
	return out
}

// tryFaultScript is faultScript returning its failure, with the script's standard
// error in it.
func tryFaultScript(name string, args ...string) (string, error) {
	cmd := exec.Command("../../../scripts/"+name, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("scripts/%s %s: %w: %s", name, strings.Join(args, " "), err, stderr.String())
	}
	return string(out), nil
}

// scriptExports reads the export lines a script's start prints into a map.
func scriptExports(out string) map[string]string {
	vars := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		k, v, _ := strings.Cut(strings.TrimPrefix(line, "export "), "=")
		vars[k] = strings.Trim(v, "'")
	}
	return vars
}

// checkAudit asserts that every question of the load, and the warm ones
// asked before it, has exactly one audit record, of its outcome: as many
// answer records as answers, and as many failure or refusal records as
// questions that did not answer.
func (l faultLoad) checkAudit(t *testing.T, recs []domain.AuditRecord, warm int) {
	t.Helper()
	answered := warm
	for _, r := range l.results {
		if r.err == nil {
			answered++
		}
	}
	outcomes := map[string]int{}
	for _, r := range recs {
		outcomes[r.Outcome]++
	}
	t.Logf("audit outcomes: %v", outcomes)
	assert.Len(t, recs, len(l.results)+warm, "one audit record per question (and the %d warm-up ones)", warm)
	assert.Equal(t, answered, outcomes["answer"], "one answer record per answer")
	assert.Equal(t, len(l.results)+warm-answered, outcomes["failure"]+outcomes["refusal"], "one failure or refusal record per question not answered")
}

// faultWarm is how many questions faultApp asks before the load, so that
// the pool's connections exist.
const faultWarm = 8

// faultApp is the application over one data system serving the demo
// catalogue b as its source (a shared service user, 8 slots), auditing
// into the returned sink, and ask, which asks net sales by channel and
// month as the local operator. It asks faultWarm questions first, which
// must be answered.
func faultApp(t *testing.T, b *domain.Bundle, system app.DataSystem) (ask func() error, audit *apptest.Audit) {
	t.Helper()
	adm, err := runtime.NewAdmission(runtime.AdmissionConfig{MaxConcurrent: 8, Timeout: 30 * time.Second})
	require.NoError(t, err)
	audit = &apptest.Audit{}
	s, err := app.New(app.Config{
		Catalog: fixedCatalog{b}, Admission: adm, Audit: audit, RequestTimeout: time.Minute,
		Sources: map[string]app.Source{demo.SourceAlias: {System: system, Posture: domain.SharedServiceUser}},
		Now:     func() time.Time { return time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC) },
	})
	require.NoError(t, err)
	q, err := domain.ParseQuestion([]byte(`{"metrics":["net_sales"],"grain":"month","range":{"start":"2025-01-01","end":"2026-01-01"},"dimensions":["channel"]}`))
	require.NoError(t, err)
	ask = func() error {
		_, err := s.Answer(context.Background(), app.Caller{Principal: domain.LocalOperator}, q)
		return err
	}
	for range faultWarm {
		require.NoError(t, ask())
	}
	time.Sleep(200 * time.Millisecond)
	return ask, audit
}

// noGoroutineLeft asserts that the goroutines return to at most four more
// than before within ten seconds (the drivers' timers may linger briefly).
func noGoroutineLeft(t *testing.T, before int) {
	t.Helper()
	var after int
	assert.Eventually(t, func() bool {
		after = goruntime.NumGoroutine()
		return after <= before+4
	}, 10*time.Second, 100*time.Millisecond, "goroutines before %d, after %d", before, after)
	t.Logf("goroutines: %d before the load, %d after", before, after)
}
