package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAskDryRun: `sutura ask --dry-run` prints the estimate on the demo,
// and the scan ceiling refuses it when set below it, naming both numbers;
// a zero budget key stops the command naming the key.
func TestAskDryRun(t *testing.T) {
	args := []string{"ask", "net_sales", "--grain", "month", "--from", "2025-01-01", "--to", "2025-04-01", "--dry-run"}
	code, out, errOut := runCLI(t, nil, args...)
	require.Equal(t, exitOK, code, out+errOut)
	assert.Contains(t, out, "estimated scan: ")
	assert.Contains(t, out, "would be answered")

	code, out, errOut = runCLI(t, map[string]string{"SUTURA__GOVERNANCE__MAX_SCAN_BYTES_PER_QUESTION": "1000"}, args...)
	require.Equal(t, exitOK, code, out+errOut)
	assert.Contains(t, out, "would be refused (scan_ceiling_exceeded)")
	assert.Contains(t, out, "ceiling of 1000 bytes")

	code, out, errOut = runCLI(t, map[string]string{"SUTURA__GOVERNANCE__MAX_SCAN_BYTES_PER_QUESTION": "1000"}, args[:len(args)-1]...)
	assert.Equal(t, exitFail, code, out+errOut)
	assert.Contains(t, errOut, "refused (scan_ceiling_exceeded)")

	code, out, errOut = runCLI(t, map[string]string{"SUTURA__GOVERNANCE__BUDGET__WINDOW_SECONDS": "60",
		"SUTURA__GOVERNANCE__BUDGET__MAX_SCANNED_BYTES": "1000", "SUTURA__GOVERNANCE__BUDGET__MAX_QUESTIONS": "0"}, args...)
	assert.NotEqual(t, exitOK, code)
	assert.Contains(t, out+errOut, "governance.budget.max_questions")
}
