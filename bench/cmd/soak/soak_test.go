package main

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReportFailsOnAnythingButTheDocumentedOutcomes: the soak passes
// (print returns true, so the command exits 0) only when every call got
// its question's outcome or at_capacity, the audit records are one per
// outcome, and the processes ended well.
func TestReportFailsOnAnythingButTheDocumentedOutcomes(t *testing.T) {
	answer := question{want: "answer"}
	refused := question{want: "refusal dimension_value_not_allowed"}
	tests := []struct {
		name  string
		calls func(*tally)
		audit int64
		probs []string
		ok    bool
		says  string
	}{
		{"answers and refusals", func(t *tally) {
			t.add(time.Millisecond, answer, "answer", nil)
			t.add(time.Millisecond, refused, "refusal dimension_value_not_allowed", nil)
			t.add(time.Millisecond, answer, "at_capacity", nil)
		}, 3, nil, true, "OK:"},
		{"a failure", func(t *tally) {
			t.add(time.Millisecond, answer, "internal", nil)
		}, 1, nil, false, "FAILED: 1 calls got internal (wanted answer)"},
		{"a refusal the question must not get", func(t *tally) {
			t.add(time.Millisecond, answer, "refusal resources_exhausted", nil)
		}, 1, nil, false, "FAILED: 1 calls got refusal resources_exhausted"},
		{"no outcome", func(t *tally) {
			t.add(time.Millisecond, answer, "", errors.New("connection reset"))
		}, 0, nil, false, "FAILED: 1 calls got no outcome: connection reset"},
		{"an audit record missing", func(t *tally) {
			t.add(time.Millisecond, answer, "answer", nil)
		}, 0, nil, false, "FAILED: not one audit record per outcome"},
		{"a process that ended badly", func(t *tally) {
			t.add(time.Millisecond, answer, "answer", nil)
		}, 1, []string{"serve exited on SIGTERM: exit status 3"}, false, "FAILED: serve exited on SIGTERM"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &report{config: config{mix: map[string]int{"http": 1}}, elapsed: time.Second,
				byTransport: map[string]*tally{"http": newTally(), "mcp": newTally(), "stdio": newTally()},
				audit:       tc.audit, problems: tc.probs}
			tc.calls(r.byTransport["http"])
			var out bytes.Buffer
			assert.Equal(t, tc.ok, r.print(&out), out.String())
			assert.Contains(t, out.String(), tc.says)
		})
	}
}

func TestParseMix(t *testing.T) {
	m, err := parseMix("http=32, mcp=24,stdio=8")
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"http": 32, "mcp": 24, "stdio": 8}, m)
	for _, bad := range []string{"", "http", "http=x", "smtp=1", "http=0", "http=-1"} {
		_, err := parseMix(bad)
		assert.Error(t, err, bad)
	}
}

func TestQuantile(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	assert.Equal(t, 50*time.Millisecond, quantile(d, 0.5))
	assert.Equal(t, 99*time.Millisecond, quantile(d, 0.99))
	assert.Equal(t, 100*time.Millisecond, quantile(d, 1))
	assert.Equal(t, time.Duration(0), quantile(nil, 0.5))
}
