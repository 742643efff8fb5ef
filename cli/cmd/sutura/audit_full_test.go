package main

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServedBinaryAnswersNothingUnaudited: a served binary whose audit
// file is on a full device (/dev/full: every write fails with ENOSPC)
// withholds the answer of the first question (internal), then refuses
// every question unavailable and says so at /ready, and keeps serving
// /health.
func TestServedBinaryAnswersNothingUnaudited(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("NOT RUN: this machine has no /dev/full to stand for a full filesystem")
	}
	s := serve(t, "SUTURA__AUDIT__SINK=file", "SUTURA__AUDIT__FILE=/dev/full")
	code, _, body := s.do(t, "GET", "/ready", "")
	require.Equal(t, 200, code, body)
	code, _, body = s.do(t, "POST", "/v1/query", year2025)
	assert.Equal(t, 500, code, body)
	assert.Contains(t, body, `"code":"internal"`)
	assert.NotContains(t, body, "net_sales\t", "no answer leaves unaudited")
	for range 2 {
		code, _, body = s.do(t, "POST", "/v1/query", year2025)
		assert.Equal(t, 503, code, body)
		assert.Contains(t, body, "the audit log cannot be written")
	}
	code, _, body = s.do(t, "GET", "/ready", "")
	assert.Equal(t, 503, code, body)
	assert.Contains(t, body, "the audit log cannot be written")
	code, _, _ = s.do(t, "GET", "/health", "")
	assert.Equal(t, 200, code)
}
