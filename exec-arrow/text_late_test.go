package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
)

// TestTextParsesOnlyRowsThatCount: a streamed CSV or NDJSON question
// parses the columns other than its time and filter columns only for the
// rows that may count (late materialisation), so a value that does not
// parse in a row outside the range, or in a row its required filter
// drops, does not stop it; a question whose rows include that value fails
// naming the column, never the value. (The background check of a served
// file reads every value: docs/operations.md.)
func TestTextParsesOnlyRowsThatCount(t *testing.T) {
	type row struct{ t, kind, amount string }
	rows := []row{
		{"2025-01-05T10:00:00Z", "sale", "5"},
		{"2025-01-06T10:00:00Z", "refund", "oops"}, // in January, dropped by the required filter
		{"2025-03-01T10:00:00Z", "sale", "nope"},   // after January
		{"2025-01-07T10:00:00Z", "sale", "7"},
	}
	var csv, ndjson strings.Builder
	csv.WriteString("t,kind,amount\n")
	for _, r := range rows {
		fmt.Fprintf(&csv, "%s,%s,%s\n", r.t, r.kind, r.amount)
		line, err := json.Marshal(map[string]string{"t": r.t, "kind": r.kind, "amount": r.amount})
		require.NoError(t, err)
		ndjson.Write(append(line, '\n'))
	}
	cols := []domain.ModelColumn{col("t", domain.TypeTimestamp), col("kind", domain.TypeText), col("amount", domain.TypeInteger)}
	sale := domain.RequiredFilter{Op: domain.Equals, Column: "kind", Value: "sale"}
	leg := domain.Leg{Base: tbl("events", "t0", cols...), TimeColumn: "t", Metrics: []domain.MetricRef{metric("sales", sum("amount"), sale)}}
	for _, f := range []struct{ name, content string }{{"events.csv", csv.String()}, {"events.ndjson", ndjson.String()}} {
		t.Run(f.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, f.name, f.content)
			e, err := New(context.Background(), Config{Source: "files", Files: os.DirFS(dir), NoCacheFill: true})
			require.NoError(t, err)
			assert.Equal(t, [][]string{{"2025-01-01", "12"}}, run(t, e, mkPlan(t, domain.Month, "2025-01-01", "2025-02-01", leg)))
			_, err = e.Execute(context.Background(), mkPlan(t, domain.Month, "2025-01-01", "2025-04-01", leg))
			require.Error(t, err, "the sale of March does not parse")
			assert.Contains(t, err.Error(), "amount")
			assert.NotContains(t, err.Error(), "nope")
		})
	}
}

// TestTextStreamedAsLoaded: CSV and NDJSON files of the same rows, times
// in no order, nulls in every column, streamed (the rows that may count
// selected before the other columns are parsed) and answered from the
// cache: the same answers, cell for cell, under a range that keeps few
// rows, required filters on some metrics and not others, a caller filter
// that keeps nulls (not_in), and none.
func TestTextStreamedAsLoaded(t *testing.T) {
	const n = 3*column.ChunkRows + 1_234
	rng := rand.New(rand.NewPCG(30, 5))
	kinds := []string{"view", "view", "click", "purchase", ""}
	type event struct {
		t, kind, user, amount, price string
	}
	events := make([]event, n)
	y2025 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range events {
		ev := &events[i]
		if i%89 != 7 {
			ev.t = y2025.Add(time.Duration(rng.Int64N(365*86_400)) * time.Second).Format(time.RFC3339)
		}
		ev.kind = kinds[rng.IntN(len(kinds))]
		if i%17 != 3 {
			ev.user = "u" + strconv.Itoa(rng.IntN(3_000))
		}
		if i%13 != 5 {
			ev.amount = strconv.Itoa(rng.IntN(10_000) - 1_000)
		}
		if i%19 != 11 {
			ev.price = strconv.Itoa(rng.IntN(100_000)) + "." + strconv.Itoa(10+rng.IntN(90))
		}
	}
	var csv, quoted, ndjson strings.Builder
	csv.WriteString("t,kind,user,amount,price\n")
	// The time field in the middle, and users quoted now and then, each
	// holding a comma or a line end: blocks with quoted records are split
	// record by record as encoding/csv reads them, the others at their
	// commas alone (text.CSVBlock).
	quoted.WriteString("kind,user,t,amount,price\n")
	for i, ev := range events {
		fmt.Fprintf(&csv, "%s,%s,%s,%s,%s\n", ev.t, ev.kind, ev.user, ev.amount, ev.price)
		user := ev.user
		if i%7 == 2 && user != "" {
			user = `"` + user + map[bool]string{true: ",x", false: "\ny"}[i%2 == 0] + `"`
		}
		fmt.Fprintf(&quoted, "%s,%s,%s,%s,%s\n", ev.kind, user, ev.t, ev.amount, ev.price)
		obj := map[string]any{"t": ev.t, "kind": ev.kind, "user": ev.user}
		if ev.amount != "" {
			obj["amount"] = json.Number(ev.amount)
		}
		if ev.price != "" {
			obj["price"] = ev.price
		}
		line, err := json.Marshal(obj)
		require.NoError(t, err)
		ndjson.Write(append(line, '\n'))
	}
	cols := []domain.ModelColumn{col("t", domain.TypeTimestamp), col("kind", domain.TypeText), col("user", domain.TypeText),
		col("amount", domain.TypeInteger), col("price", domain.TypeDecimal)}
	leg := func(ms ...domain.MetricRef) domain.Leg {
		return domain.Leg{Base: tbl("events", "t0", cols...), TimeColumn: "t", Metrics: ms}
	}
	purchase := domain.RequiredFilter{Op: domain.Equals, Column: "kind", Value: "purchase"}
	buyers := leg(metric("buyers", simple(domain.CountDistinct, "user"), purchase), metric("spent", sum("price"), purchase))
	mixed := leg(metric("buyers", simple(domain.CountDistinct, "user"), purchase), metric("amount", sum("amount")),
		metric("top", simple(domain.Max, "user")), metric("n", count("price")))
	byKind := leg(metric("amount", sum("amount")), metric("spent", sum("price")))
	byKind.Dimensions = []domain.DimensionRef{dim("kind", "t0", "kind")}
	notViews := leg(metric("users", simple(domain.CountDistinct, "user")), metric("amount", sum("amount")))
	notViews.Filters = []domain.FilterRef{filter(domain.OpNotIn, "t0", "kind", "view")}
	notViews.Dimensions = []domain.DimensionRef{dim("kind", "t0", "kind")}
	plans := []*domain.Plan{
		mkPlan(t, domain.Day, "2025-06-01", "2025-06-04", buyers),
		mkPlan(t, domain.Month, "2025-01-01", "2026-01-01", buyers),
		mkPlan(t, domain.Week, "2025-03-03", "2025-03-17", mixed),
		mkPlan(t, domain.Year, "2025-01-01", "2026-01-01", mixed),
		mkPlan(t, domain.Day, "2025-09-01", "2025-09-03", byKind),
		mkPlan(t, domain.Quarter, "2025-01-01", "2026-01-01", byKind),
		mkPlan(t, domain.Month, "2025-04-01", "2025-06-01", notViews),
	}
	for _, f := range []struct{ name, content string }{{"events.csv", csv.String()}, {"events.ndjson", ndjson.String()}} {
		t.Run(f.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, f.name, f.content)
			streamedAsCached(t, dir, plans)
		})
	}
	t.Run("quoted.csv", func(t *testing.T) {
		dir := t.TempDir()
		write(t, dir, "events.csv", quoted.String())
		streamedAsCached(t, dir, plans)
	})
	// A text file is read in ranges by the workers when its file allows
	// positioned reads (and it holds two ranges a worker: ranges of 256 KiB
	// here), and cut by the dispatcher when it does not: the same answers
	// either way, the quoted CSV's line ends inside quotes cut by ranges.
	defer func(b int64) { rangeBytes = b }(rangeBytes)
	rangeBytes = 256 << 10
	for _, f := range []struct{ name, content string }{{"events.csv", csv.String()}, {"events.ndjson", ndjson.String()}, {"events.csv", quoted.String()}} {
		require.Greater(t, len(f.content), 8*int(rangeBytes))
		dir := t.TempDir()
		write(t, dir, f.name, f.content)
		want := answers(t, newEngine(t, os.DirFS(dir)), plans, false)
		for _, positioned := range []bool{true, false} {
			fsys := &readsCounted{FS: os.DirFS(dir), positioned: positioned}
			e, err := New(context.Background(), Config{Source: "files", Files: fsys, NoCacheFill: true})
			require.NoError(t, err)
			assert.Equal(t, want, answers(t, e, plans, false), "%s, positioned reads: %v", f.name, positioned)
			if positioned {
				assert.Greater(t, fsys.readAts.Load(), int64(2), "several ranges")
				assert.Zero(t, fsys.reads.Load(), "no sequential read")
			} else {
				assert.Greater(t, fsys.reads.Load(), int64(0))
			}
		}
	}
}

// readsCounted counts the reads of the files it opens: sequential ones,
// and positioned ones when it offers them (positioned).
type readsCounted struct {
	fs.FS
	positioned     bool
	reads, readAts atomic.Int64
}

func (c *readsCounted) Open(name string) (fs.File, error) {
	f, err := c.FS.Open(name)
	if err != nil {
		return nil, err
	}
	seq := &sequential{File: f, n: &c.reads}
	if !c.positioned {
		return seq, nil
	}
	return &positioned{sequential: seq, n: &c.readAts}, nil
}

type sequential struct {
	fs.File
	n *atomic.Int64
}

func (f *sequential) Read(p []byte) (int, error) {
	f.n.Add(1)
	return f.File.Read(p)
}

type positioned struct {
	*sequential
	n *atomic.Int64
}

func (f *positioned) ReadAt(p []byte, off int64) (int, error) {
	f.n.Add(1)
	return f.File.(io.ReaderAt).ReadAt(p, off)
}

// BenchmarkTextStreamed streams questions over a CSV and an NDJSON file
// of 400 000 web events (times in no order over two years, a text key of
// 50 000 values, few kinds, an amount): a month of a year's rows, a
// required filter 5% of rows pass, and every row (where nothing is left
// out). Compare builds with the same -count, runs alternated: the machine
// drifts (docs/performance.md).
func BenchmarkTextStreamed(b *testing.B) {
	const n = 400_000
	rng := rand.New(rand.NewPCG(7, 30))
	kinds := []string{"view", "view", "view", "click", "click", "cart", "purchase"}
	var csv, ndjson strings.Builder
	csv.WriteString("t,kind,user,amount\n")
	y2024 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for range n {
		ts := y2024.Add(time.Duration(rng.Int64N(730*86_400)) * time.Second).Format(time.RFC3339)
		kind := kinds[rng.IntN(len(kinds))]
		if kind == "purchase" && rng.IntN(3) > 0 {
			kind = "view"
		}
		user := "user-" + strconv.Itoa(rng.IntN(50_000))
		amount := strconv.Itoa(rng.IntN(100_000))
		fmt.Fprintf(&csv, "%s,%s,%s,%s\n", ts, kind, user, amount)
		fmt.Fprintf(&ndjson, `{"t":%q,"kind":%q,"user":%q,"amount":%s}`+"\n", ts, kind, user, amount)
	}
	leg := eventsLeg("t", col("t", domain.TypeTimestamp), col("kind", domain.TypeText), col("user", domain.TypeText), col("amount", domain.TypeInteger))
	purchase := domain.RequiredFilter{Op: domain.Equals, Column: "kind", Value: "purchase"}
	byKind := leg(metric("amount", sum("amount")))
	byKind.Dimensions = []domain.DimensionRef{dim("kind", "t0", "kind")}
	questions := []benchQuestion{
		{"month", mkPlan(b, domain.Day, "2025-03-01", "2025-04-01", leg(metric("users", simple(domain.CountDistinct, "user")), metric("amount", sum("amount"))))},
		{"purchases", mkPlan(b, domain.Quarter, "2024-01-01", "2026-01-01", leg(metric("buyers", simple(domain.CountDistinct, "user"), purchase), metric("spent", sum("amount"), purchase)))},
		{"all", mkPlan(b, domain.Year, "2024-01-01", "2026-01-01", byKind)},
	}
	for _, f := range []struct{ name, content string }{{"events.csv", csv.String()}, {"events.ndjson", ndjson.String()}} {
		dir := b.TempDir()
		write(b, dir, f.name, f.content)
		benchQuestions(b, dir, strings.TrimPrefix(f.name, "events."), int64(len(f.content)), questions)
	}
}

// BenchmarkWebText streams three questions over the web shape's events
// as bench/cmd/compare writes them (records of about 100 bytes in CSV
// and 230 in NDJSON, times in no order): a quarter by day (the time
// column alone), a year by country (a text dimension) and revenue by
// month under a required filter. SUTURA_BENCH_WEB_TEXT names a
// directory holding csv/events.csv and ndjson/events.ndjson, for
// instance the first 2 000 000 lines of the generated files
// (docs/performance.md, "Text fields column by column").
func BenchmarkWebText(b *testing.B) {
	dir := os.Getenv("SUTURA_BENCH_WEB_TEXT")
	if dir == "" {
		b.Skip("SUTURA_BENCH_WEB_TEXT names no directory of the web shape's text files")
	}
	leg := eventsLeg("event_time", col("event_time", domain.TypeTimestamp), col("event_id", domain.TypeInteger), col("country", domain.TypeText),
		col("event_type", domain.TypeText), col("revenue_cents", domain.TypeInteger))
	purchase := domain.RequiredFilter{Op: domain.Equals, Column: "event_type", Value: "purchase"}
	byCountry := leg(metric("n", count("event_id")))
	byCountry.Dimensions = []domain.DimensionRef{dim("country", "t0", "country")}
	qs := []benchQuestion{
		{"day", mkPlan(b, domain.Day, "2025-04-01", "2025-07-01", leg(metric("n", count("event_id"))))},
		{"country", mkPlan(b, domain.Year, "2025-01-01", "2026-01-01", byCountry)},
		{"revenue", mkPlan(b, domain.Month, "2024-01-01", "2026-01-01", leg(metric("rev", sum("revenue_cents"), purchase)))},
	}
	for _, f := range []string{"csv", "ndjson"} {
		benchQuestions(b, filepath.Join(dir, f), f, 0, qs)
	}
}

type benchQuestion struct {
	name string
	plan *domain.Plan
}

// benchQuestions streams each question over the files of dir, as
// sub-benchmarks prefix/name (of size bytes, when not 0).
func benchQuestions(b *testing.B, dir, prefix string, size int64, qs []benchQuestion) {
	e, err := New(context.Background(), Config{Source: "files", Files: os.DirFS(dir), NoCacheFill: true})
	require.NoError(b, err)
	for _, q := range qs {
		b.Run(prefix+"/"+q.name, func(b *testing.B) {
			if size > 0 {
				b.SetBytes(size)
			}
			for b.Loop() {
				if _, err := e.Execute(context.Background(), q.plan); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// eventsLeg makes legs over a table events of cols, by time column t.
func eventsLeg(t string, cols ...domain.ModelColumn) func(ms ...domain.MetricRef) domain.Leg {
	return func(ms ...domain.MetricRef) domain.Leg {
		return domain.Leg{Base: tbl("events", "t0", cols...), TimeColumn: t, Metrics: ms}
	}
}
