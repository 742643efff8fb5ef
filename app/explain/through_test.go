package explain_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app/apptest"
	"sutura.dev/app/explain"
	"sutura.dev/domain"
)

// teller tells the same day for every column after a pause, counting the
// queries it runs at once.
type teller struct {
	pause     time.Duration
	now, most atomic.Int32
	mu        sync.Mutex
	asked     map[string]int
	failModel string
}

func (tl *teller) DataThrough(ctx context.Context, model, column string) (domain.Date, bool, error) {
	n := tl.now.Add(1)
	defer tl.now.Add(-1)
	for m := tl.most.Load(); n > m && !tl.most.CompareAndSwap(m, n); m = tl.most.Load() {
	}
	tl.mu.Lock()
	tl.asked[model+"."+column]++
	tl.mu.Unlock()
	select {
	case <-time.After(tl.pause):
	case <-ctx.Done():
		return 0, false, ctx.Err()
	}
	if model == tl.failModel {
		return 0, false, context.DeadlineExceeded
	}
	return domain.DateOf(2026, 11, 30), true, nil
}

// ReadThrough asks each model and time column once, several at a time
// (never more than explain.Concurrent), and keeps what was told: a pair
// whose query fails is absent, the others are not.
func TestReadThroughAsksEachPairOnceSeveralAtATime(t *testing.T) {
	b := manyModels(t, 6)
	pairs := map[string]bool{}
	for _, m := range b.Definitions().Metrics {
		pairs[m.Model+"."+m.TimeColumn] = true
	}
	require.Len(t, pairs, 6)
	tl := &teller{pause: 50 * time.Millisecond, asked: map[string]int{}, failModel: "sales2"}
	through, err := explain.ReadThrough(context.Background(), b, func(string) explain.Teller { return tl })
	require.NoError(t, err)
	for p := range pairs {
		assert.Equal(t, 1, tl.asked[p], "%s asked once", p)
	}
	assert.Greater(t, tl.most.Load(), int32(1), "queries overlap")
	assert.LessOrEqual(t, tl.most.Load(), int32(explain.Concurrent))
	for _, m := range b.Definitions().Metrics {
		d, ok := through.Of(b, m.Model, m.TimeColumn)
		if m.Model == tl.failModel {
			assert.False(t, ok, "%s.%s failed: no day", m.Model, m.TimeColumn)
			continue
		}
		assert.True(t, ok, "%s.%s", m.Model, m.TimeColumn)
		assert.Equal(t, domain.DateOf(2026, 11, 30), d)
	}
}

// The end of the caller's context ends ReadThrough with its error, the
// queries under way cancelled.
func TestReadThroughEndsWithItsContext(t *testing.T) {
	b := apptest.Bundle(t, "v1")
	tl := &teller{pause: time.Hour, asked: map[string]int{}}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err := explain.ReadThrough(ctx, b, func(string) explain.Teller { return tl })
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, int32(0), tl.now.Load(), "no query is left running")
}

// manyModels is the demo bundle with n copies of its model (sales1 …),
// each with a metric of its own.
func manyModels(t *testing.T, n int) *domain.Bundle {
	defs := apptest.Definitions()
	model, metric := defs.Models[0], defs.Metrics[1]
	defs.Models, defs.Metrics = nil, nil
	for i := range n {
		m, x := model, metric
		m.Name = fmt.Sprintf("sales%d", i+1)
		x.Name, x.Model, x.Audience = fmt.Sprintf("revenue%d", i+1), m.Name, domain.Audience{}
		defs.Models, defs.Metrics = append(defs.Models, m), append(defs.Metrics, x)
	}
	b, err := domain.NewBundle("v1", defs, domain.Knowledge{})
	require.NoError(t, err)
	return b
}
