package engine

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
)

// An NDJSON file of several megabytes whose lines hold their members in
// any order, repeated members (the last counts), escaped text, nested
// members nobody asked for, nulls and white space is read as
// encoding/json reads each line into a map: streamed and from the cache,
// a count, a sum and a distinct count of text by month are the ones
// written.
func TestNDJSONReadAsEncodingJSONReadsIt(t *testing.T) {
	const n = 100_000
	rng := rand.New(rand.NewPCG(21, 22))
	notes := []string{`plain`, `esc\"aped`, `caf\u00e9`, `café`, `tab\tin`, `slash\/`}
	decoded := []string{`plain`, `esc"aped`, `café`, `café`, "tab\tin", `slash/`} // café twice: one value
	var b strings.Builder
	counts, sums, seen := map[int]int{}, map[int]int64{}, map[int]map[string]bool{}
	for range n {
		month := 1 + rng.IntN(12)
		day := fmt.Sprintf(`"day":"2025-%02d-%02d"`, month, 1+rng.IntN(28))
		k := rng.IntN(len(notes))
		members := []string{day, fmt.Sprintf(`"note":"%s"`, notes[k]), `"extra":{"a":[1,{"b":null}],"c":"x"}`}
		var amount int64
		switch rng.IntN(4) {
		case 0:
			members = append(members, `"amount":null`)
		case 1:
			amount = rng.Int64N(1000)
			members = append(members, fmt.Sprintf(`"amount":99999,"amount":%d`, amount)) // the last counts
		default:
			amount = rng.Int64N(1000)
			members = append(members, fmt.Sprintf(`"amount": %d`, amount))
		}
		rng.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
		sep := []string{",", " , ", ",\t"}[rng.IntN(3)]
		fmt.Fprintf(&b, "{%s}\n", strings.Join(members, sep))
		if rng.IntN(100) == 0 {
			b.WriteString("\n  \r\n")
		}
		counts[month]++
		sums[month] += amount
		if seen[month] == nil {
			seen[month] = map[string]bool{}
		}
		seen[month][decoded[k]] = true
	}
	var want [][]string
	for m := 1; m <= 12; m++ {
		want = append(want, []string{fmt.Sprintf("2025-%02d-01", m), fmt.Sprint(counts[m]), fmt.Sprint(sums[m]), fmt.Sprint(len(seen[m]))})
	}
	dir := t.TempDir()
	write(t, dir, "t.ndjson", b.String())
	require.Greater(t, b.Len(), 4<<20)
	cols := []domain.ModelColumn{col("day", domain.TypeDate), col("amount", domain.TypeInteger), col("note", domain.TypeText)}
	model := domain.Model{Name: "t", Source: "files", Table: "t", Columns: cols}
	p := mkPlan(t, domain.Month, "2025-01-01", "2026-01-01", domain.Leg{Base: tbl("t", "t0", cols...), TimeColumn: "day",
		Metrics: []domain.MetricRef{metric("n", simple(domain.Count, "day")), metric("total", simple(domain.Sum, "amount")),
			metric("notes", simple(domain.CountDistinct, "note"))}})
	streamedAndCached(t, dir, model, p, want)
}

// An NDJSON question over one month reads only the time member of the
// other months' lines (text.Late): the answers are the ones written, for
// lines with an escape elsewhere, a nested object, the time member twice
// (the last counting), and a time member with an escape, which is kept
// whatever its time and read whole; and a column only lines outside the
// month hold is no missing column.
func TestNDJSONNarrowedByTime(t *testing.T) {
	const n = 60_000
	rng := rand.New(rand.NewPCG(31, 32))
	count, total, notes := 0, int64(0), map[string]bool{}
	var b strings.Builder
	for i := range n {
		month := 1 + rng.IntN(12)
		day := fmt.Sprintf("2025-%02d-%02d", month, 1+rng.IntN(28))
		amount := rng.Int64N(1000)
		note := fmt.Sprintf("n%d", rng.IntN(300))
		switch i % 50 { // a few lines read whole: most blocks are narrowed
		case 1:
			fmt.Fprintf(&b, `{"day":"%s","amount":%d,"note":"%s","esc":"a\"b"}`+"\n", day, amount, note)
		case 2:
			fmt.Fprintf(&b, `{"o":{"day":"2024-01-01"},"day":"%s","amount":%d,"note":"%s"}`+"\n", day, amount, note)
		case 3:
			fmt.Fprintf(&b, `{"day":"2024-01-01","amount":%d,"day":"%s","note":"%s"}`+"\n", amount, day, note)
		case 4, 5, 6: // the time escaped: not a plain string
			fmt.Fprintf(&b, `{"day":"%s\u002d%s","amount":%d,"note":"%s"}`+"\n", day[:7], day[8:], amount, note)
		default:
			late := ""
			if month == 12 {
				late = `,"late":1`
			}
			fmt.Fprintf(&b, `{ "day" : "%s", "amount":%d,"note":"%s"%s}`+"\n", day, amount, note, late)
		}
		if month == 3 {
			count++
			total += amount
			notes[note] = true
		}
	}
	dir := t.TempDir()
	write(t, dir, "t.ndjson", b.String())
	cols := []domain.ModelColumn{col("day", domain.TypeDate), col("amount", domain.TypeInteger), col("note", domain.TypeText), col("late", domain.TypeInteger)}
	model := domain.Model{Name: "t", Source: "files", Table: "t", Columns: cols}
	p := mkPlan(t, domain.Month, "2025-03-01", "2025-04-01", domain.Leg{Base: tbl("t", "t0", cols...), TimeColumn: "day",
		Metrics: []domain.MetricRef{metric("n", simple(domain.Count, "day")), metric("total", simple(domain.Sum, "amount")),
			metric("notes", simple(domain.CountDistinct, "note")), metric("late", simple(domain.Count, "late"))}})
	want := [][]string{{"2025-03-01", fmt.Sprint(count), fmt.Sprint(total), fmt.Sprint(len(notes)), "0"}}
	streamedAndCached(t, dir, model, p, want)
}
