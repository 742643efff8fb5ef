package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
)

// TestTimestampCachedAsDays (CSV, NDJSON, Parquet): a timestamp time
// column that a question reads for nothing else is cached as its UTC
// days, a date column of four bytes a row, and the answers from it are
// those streamed from the timestamps: times just before and after
// midnight, before 1970, and nulls land in the same days and buckets. A question that also measures the column (its
// latest time) caches the timestamps themselves, and its answer keeps the
// time of day. A days column that rounded a time the wrong way (toward
// zero before 1970), or served the question that measures the column,
// fails it.
func TestTimestampCachedAsDays(t *testing.T) {
	const n = 2*column.ChunkRows + 777
	rng := rand.New(rand.NewPCG(5, 9))
	first := time.Date(1969, 12, 1, 0, 0, 0, 0, time.UTC)
	edges := []time.Duration{0, time.Microsecond, 24*time.Hour - time.Microsecond, 12 * time.Hour}
	var csv, ndjson strings.Builder
	csv.WriteString("d,kind,shipped,amount\n")
	type row struct {
		d       int32
		kind    string
		shipped string
		amount  int64
	}
	rows := make([]row, n)
	for i := range rows {
		r := &rows[i]
		day := first.AddDate(0, 0, rng.IntN(120)) // across 1970-01-01, in no order
		r.d = int32(day.Unix() / 86_400)
		if i%13 != 6 {
			at := day.Add(edges[i%len(edges)])
			if i%len(edges) == 3 {
				at = day.Add(time.Duration(rng.Int64N(86_400_000_000)) * time.Microsecond)
			}
			r.shipped = at.Format("2006-01-02T15:04:05.999999Z07:00")
		}
		r.kind = fmt.Sprint("k", i%8)
		r.amount = rng.Int64N(1_000)
		d := time.Unix(int64(r.d)*86_400, 0).UTC().Format(time.DateOnly)
		fmt.Fprintf(&csv, "%s,%s,%s,%d\n", d, r.kind, r.shipped, r.amount)
		shipped := "null"
		if r.shipped != "" {
			shipped = `"` + r.shipped + `"`
		}
		fmt.Fprintf(&ndjson, `{"d":"%s","kind":"%s","shipped":%s,"amount":%d}`+"\n", d, r.kind, shipped, r.amount)
	}
	cols := []domain.ModelColumn{col("d", domain.TypeDate), col("kind", domain.TypeText),
		col("shipped", domain.TypeTimestamp), col("amount", domain.TypeInteger)}
	leg := func(ms ...domain.MetricRef) domain.Leg {
		return domain.Leg{Base: tbl("orders", "t0", cols...), TimeColumn: "shipped", Metrics: ms,
			Dimensions: []domain.DimensionRef{dim("kind", "t0", "kind")}}
	}
	byDay := mkPlan(t, domain.Day, "1969-12-20", "1970-01-12", leg(metric("value", sum("amount")), metric("orders", count("amount"))))
	byMonth := mkPlan(t, domain.Month, "1969-12-01", "1970-04-01", leg(metric("orders", count("amount"))))
	latest := mkPlan(t, domain.Week, "1969-12-29", "1970-02-02", leg(metric("latest", simple(domain.Max, "shipped"))))
	// Over every day, with a caller's filter few rows pass.
	shop := mkPlan(t, domain.Day, "1969-12-01", "1970-04-01", leg(metric("value", sum("amount"))))
	shop.Legs[0].Filters = []domain.FilterRef{filter(domain.OpEq, "t0", "kind", "k3")}
	plans := []*domain.Plan{byDay, byMonth, latest, shop}

	for _, format := range []string{"csv", "ndjson", "parquet"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			switch format {
			case "csv":
				write(t, dir, "orders.csv", csv.String())
			case "ndjson":
				write(t, dir, "orders.ndjson", ndjson.String())
			default:
				writeOrdersParquet(t, filepath.Join(dir, "orders.parquet"), n, func(i int) (int32, string, string, int64) {
					r := rows[i]
					return r.d, r.kind, r.shipped, r.amount
				})
			}
			streamed, err := New(context.Background(), Config{Source: "files", Files: os.DirFS(dir), NoCacheFill: true})
			require.NoError(t, err)
			want := answers(t, streamed, plans, false)
			for i, a := range want {
				require.NotEmpty(t, a, "question %d", i)
			}
			require.Contains(t, fmt.Sprint(want[2]), "T", "the latest time keeps its time of day")

			cached := newEngine(t, os.DirFS(dir))
			answers(t, cached, plans, true)
			got := answers(t, cached, plans, false)
			reads := cached.cache.Stats().Reads
			assert.Equal(t, want, got, "from the cache")
			assert.Equal(t, reads, cached.cache.Stats().Reads, "every answer from the cache")

			var days, micros *column.Column
			for w, ce := range cached.cache.Cached("orders") {
				if w.Name == "shipped" && !w.ValidOnly {
					if w.Days {
						days = ce.Col
					} else {
						micros = ce.Col
					}
				}
			}
			require.NotNil(t, days, "the time column of the first two questions is cached as days")
			assert.Equal(t, domain.TypeDate, days.Type)
			assert.Len(t, days.Days16, n, "two bytes a row: the dates are within 89 years of the first")
			assert.Nil(t, days.Ints)
			require.NotNil(t, days.Valid, "the nulls are kept")
			require.NotNil(t, micros, "the question that measures the column caches the timestamps")
			assert.Len(t, micros.Ints, n)
			assert.Less(t, days.Bytes, micros.Bytes*3/8, "two bytes a row, not eight")
		})
	}
}
