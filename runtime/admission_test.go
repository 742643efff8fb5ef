package runtime

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewAdmissionValidates(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  AdmissionConfig
		ok   bool
	}{
		{"defaults", AdmissionConfig{}, true},
		{"max 512", AdmissionConfig{MaxConcurrent: 512}, true},
		{"max 513", AdmissionConfig{MaxConcurrent: 513}, false},
		{"negative", AdmissionConfig{MaxConcurrent: -1}, false},
		{"timeout too short", AdmissionConfig{Timeout: time.Millisecond}, false},
		{"timeout too long", AdmissionConfig{Timeout: 301 * time.Second}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := NewAdmission(tc.cfg)
			if !tc.ok {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Positive(t, a.Capacity())
		})
	}
	a, err := NewAdmission(AdmissionConfig{})
	require.NoError(t, err)
	assert.Equal(t, 8, a.Capacity())
}

func TestAdmissionBoundsConcurrency(t *testing.T) {
	const n, extra = 3, 4
	a, err := NewAdmission(AdmissionConfig{MaxConcurrent: n, Timeout: time.Second})
	require.NoError(t, err)
	var (
		mu       sync.Mutex
		running  int
		peak     int
		atCap    int
		wg       sync.WaitGroup
		hold     = make(chan struct{})
		admitted = make(chan struct{}, n+extra)
	)
	for i := 0; i < n+extra; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			release, err := a.Acquire(context.Background())
			if errors.Is(err, ErrAtCapacity) {
				mu.Lock()
				atCap++
				mu.Unlock()
				return
			}
			require.NoError(t, err)
			defer release()
			mu.Lock()
			running++
			peak = max(peak, running)
			mu.Unlock()
			admitted <- struct{}{}
			<-hold
			mu.Lock()
			running--
			mu.Unlock()
		}()
	}
	for i := 0; i < n; i++ {
		<-admitted
	}
	require.Eventually(t, func() bool { return a.Waiting() == extra }, time.Second, 5*time.Millisecond, "the others wait")
	// The others wait out the admission window, then give up.
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return atCap == extra }, 3*time.Second, 10*time.Millisecond)
	assert.Equal(t, n, a.InUse())
	assert.Equal(t, 0, a.Waiting())
	close(hold)
	wg.Wait()
	assert.Equal(t, n, peak)
	assert.Equal(t, n, a.Peak(), "the high-water mark is the capacity, never more")
	assert.Equal(t, 0, a.InUse())
}

func TestAcquireHonoursCallerCancellation(t *testing.T) {
	a, err := NewAdmission(AdmissionConfig{MaxConcurrent: 1, Timeout: 10 * time.Second})
	require.NoError(t, err)
	release, err := a.Acquire(context.Background())
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	_, err = a.Acquire(ctx)
	assert.ErrorIs(t, err, context.Canceled)
	release()
	release() // a second release must not free a slot it does not hold
	assert.Equal(t, 0, a.InUse())
	r1, err := a.Acquire(context.Background())
	require.NoError(t, err)
	ctx2, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	_, err = a.Acquire(ctx2)
	assert.ErrorIs(t, err, context.DeadlineExceeded, "double release must not have made room for two holders")
	r1()
}

func TestExecutionDeadline(t *testing.T) {
	assert.Equal(t, 29*time.Second, ExecutionBudget(30*time.Second))
	assert.Equal(t, time.Duration(0), ExecutionBudget(time.Second))
	parent, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	ctx, cancel2 := WithExecutionDeadline(parent, 30*time.Second)
	defer cancel2()
	d, ok := ctx.Deadline()
	require.True(t, ok)
	pd, _ := parent.Deadline()
	assert.Equal(t, pd.Add(-ReplyMargin), d, "the caller's earlier deadline less the margin wins")
	ctx3, cancel3 := WithExecutionDeadline(context.Background(), 10*time.Second)
	defer cancel3()
	d3, _ := ctx3.Deadline()
	assert.WithinDuration(t, time.Now().Add(9*time.Second), d3, time.Second)
}
