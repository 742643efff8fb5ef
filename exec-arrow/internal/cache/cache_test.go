package cache

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/files"
	"sutura.dev/exec-arrow/internal/format"
	"sutura.dev/exec-arrow/internal/gate"
)

// sales is a CSV table of n rows: a day and an amount.
func sales(t *testing.T, n int) (fstest.MapFS, *files.Table) {
	var b strings.Builder
	b.WriteString("day,amount\n")
	for i := range n {
		fmt.Fprintf(&b, "2025-%02d-%02d,%d\n", 1+i%12, 1+i%28, i%1000)
	}
	fsys := fstest.MapFS{"sales.csv": {Data: []byte(b.String()), ModTime: time.Unix(1, 0)}}
	tf, err := files.Locate(fsys, "sales")
	require.NoError(t, err)
	return fsys, tf
}

var salesWants = []format.Want{{Name: "day", Type: domain.TypeDate}, {Name: "amount", Type: domain.TypeInteger}}

// entries are c's cached columns, under c.mu.
func entries(c *Cache) []*colEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*colEntry
	for _, t := range c.tables {
		for _, ce := range t.cols {
			out = append(out, ce)
		}
	}
	return out
}

func refusal(t *testing.T, err error) domain.Code {
	t.Helper()
	var r *domain.RefusalError
	require.ErrorAs(t, err, &r)
	return r.Reason.Code()
}

// TestAcquireCachesAndPeekFinds: a question's columns, loaded once, are
// found by the next question at the same file identity, accounted to the
// working set, pinned while held; a new identity replaces them.
func TestAcquireCachesAndPeekFinds(t *testing.T) {
	fsys, tf := sales(t, 5_000)
	c := New(Config{Limit: 64 << 20, Files: fsys})
	require.Nil(t, c.Peek(tf, salesWants), "nothing cached yet")
	v, err := c.Acquire(context.Background(), fsys, tf, salesWants)
	require.NoError(t, err)
	assert.Equal(t, 5_000, v.Rows)
	s := c.Stats()
	assert.Equal(t, 2, s.Pinned)
	assert.Equal(t, s.Columns, s.Used)
	assert.EqualValues(t, 1, s.Reads)
	v.Release()
	assert.Zero(t, c.Stats().Pinned)

	w := c.Peek(tf, salesWants)
	require.NotNil(t, w, "cached")
	assert.Same(t, v.Cols["day"], w.Cols["day"])
	assert.Same(t, w.Derived["day"], w.Held(w.Cols["day"]), "a cached column's derived structures are its entry's")
	w.Release()
	assert.EqualValues(t, 1, c.Stats().Reads, "found, not read")

	moved := *tf
	moved.ID += "-changed"
	assert.Nil(t, c.Peek(&moved, salesWants), "another identity")
	_, err = c.Acquire(context.Background(), fsys, &moved, salesWants)
	require.NoError(t, err)
	assert.Equal(t, []string{"sales"}, c.Tables())
	assert.Len(t, c.Cached("sales"), 2, "the old identity's columns retired")
}

// TestEveryReservationWaitsWhileOthersRun: a question's reservation that
// does not fit while another question holds memory is refused as
// gate.Busy (the question gives back what it holds and is asked again
// when that one ends), whichever reservation it is — working memory, or
// a structure derived from a cached column (a join's index, codes) — and
// is refused for good only when no other question runs.
func TestEveryReservationWaitsWhileOthersRun(t *testing.T) {
	const limit = 64 << 20
	fsys, tf := sales(t, 5_000)
	c := New(Config{Limit: limit, Files: fsys})
	v, err := c.Acquire(context.Background(), fsys, tf, salesWants) // the asking question's
	require.NoError(t, err)
	ce := v.pins[0]

	c.Enter() // the holding question
	require.NoError(t, c.Reserve(limit/2))
	c.Enter() // the asking question
	var busy gate.Busy
	assert.ErrorAs(t, c.Reserve(limit*3/4), &busy, "working memory")
	assert.ErrorAs(t, ce.ReserveDerived(limit*3/4), &busy, "a derived structure")
	c.Release(limit / 2)
	c.Leave()                              // the holder ends
	require.NoError(t, c.Reserve(limit/2)) // what is held now is the asker's own
	for name, err := range map[string]error{"working memory": c.Reserve(limit * 3 / 4), "a derived structure": ce.ReserveDerived(limit * 3 / 4)} {
		assert.False(t, errors.As(err, &busy), "%s alone: refused for good", name)
		assert.Equal(t, domain.ResourcesExhausted, refusal(t, err), name)
	}
	c.Release(limit / 2)
	v.Release()
	c.Leave()
	s := c.Stats()
	assert.Equal(t, s.Columns, s.Used, "every reservation given back")
}

// A column held for a structure built in the background (colEntry.Hold)
// is not evicted to make room until the build releases it; a column
// already evicted cannot be held.
func TestHeldColumnIsNotEvicted(t *testing.T) {
	fsys, tf := sales(t, 5_000)
	c := New(Config{Limit: 64 << 20, Files: fsys})
	v, err := c.Acquire(context.Background(), fsys, tf, salesWants)
	require.NoError(t, err)
	v.Release()
	cols := entries(c)
	require.Len(t, cols, 2)
	held := cols[0]
	release, ok := held.Hold()
	require.True(t, ok)
	c.mu.Lock()
	for v := c.victimLocked(); v != nil; v = c.victimLocked() {
		require.NotSame(t, held, v, "the held column is no victim")
		c.retireColLocked(v)
	}
	assert.False(t, held.dead)
	c.mu.Unlock()
	release()
	c.mu.Lock()
	assert.Same(t, held, c.victimLocked(), "released, it is the last one left")
	c.retireColLocked(held)
	c.mu.Unlock()
	assert.True(t, held.Retired())
	_, ok = held.Hold()
	assert.False(t, ok, "an evicted column cannot be held")
	assert.Zero(t, c.Stats().Used)
}

// TestScheduleFitsOrRefuses: a fill is queued when what it will hold fits
// beside the columns questions pin, and refused otherwise; one asked for
// twice runs once, building the day index the shorter range asked for.
func TestScheduleFitsOrRefuses(t *testing.T) {
	fsys, tf := sales(t, 5_000)
	c := New(Config{Limit: 1 << 20, Files: fsys, HoldFills: true})
	assert.False(t, c.Schedule(Fill{Table: tf, Wants: salesWants}, 1<<20+1), "over the working set")
	require.True(t, c.Schedule(Fill{Table: tf, Wants: salesWants, Days: "day", Span: 90}, 1<<19))
	require.True(t, c.Schedule(Fill{Table: tf, Wants: salesWants, Days: "day", Span: 30}, 1<<19))
	require.True(t, c.Schedule(Fill{Table: tf, Wants: salesWants}, 1<<19))
	c.mu.Lock()
	require.Len(t, c.fills.pending, 1, "the same table and columns queued once")
	assert.Equal(t, "day", c.fills.pending[0].Days)
	assert.EqualValues(t, 30, c.fills.pending[0].Span, "the shorter range")
	c.mu.Unlock()
	require.NoError(t, c.Settle(context.Background()), "held fills are not waited for")
	assert.Nil(t, c.Cached("sales"))

	c.StartFills()
	require.NoError(t, c.Settle(context.Background()))
	cached := c.Cached("sales")
	require.Len(t, cached, 2, "the fill ran")
	assert.EqualValues(t, 1, c.Stats().Reads)
	for _, e := range cached {
		assert.Zero(t, e.Pins, "a fill pins nothing once done")
	}
	for _, ce := range entries(c) {
		if ce.w.Name == "day" {
			assert.NotNil(t, ce.derived.Days(), "the fill built the day index the range asked for")
		}
	}
}

// TestPutAccountsBeyondTheLimit: columns generated in memory are cached as
// the table's, found by Peek, and counted in full.
func TestPutAccountsBeyondTheLimit(t *testing.T) {
	fsys, tf := sales(t, 10)
	c := New(Config{Limit: 1, Files: fsys})
	b := column.NewBuilder(domain.TypeInteger, false)
	for i := range 3 {
		require.NoError(t, b.AppendInt(int64(i)))
	}
	col := b.Finish("amount")
	c.Put(tf, 3, []column.Segment{{Lo: 0, Hi: 3}}, col)
	v := c.Peek(tf, []format.Want{{Name: "amount", Type: domain.TypeInteger}})
	require.NotNil(t, v)
	assert.Same(t, col, v.Cols["amount"])
	v.Release()
	assert.Equal(t, col.Bytes, c.Stats().Used)
}
