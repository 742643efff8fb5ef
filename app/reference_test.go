package app_test

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/domain"
)

// codeRow is a row of a code table in docs/reference.md: | `code` | status | when |.
var codeRow = regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\| (\\d+|—) \\|")

// referenceTable returns the code → status rows of the section of
// docs/reference.md whose heading is heading.
func referenceTable(t *testing.T, heading string) map[string]int {
	t.Helper()
	data, err := os.ReadFile("../docs/reference.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(data), "\n## "+heading+"\n")
	require.True(t, ok, "docs/reference.md has no section %q", heading)
	section, _, _ = strings.Cut(section, "\n## ")
	rows := map[string]int{}
	for _, m := range codeRow.FindAllStringSubmatch(section, -1) {
		status, _ := strconv.Atoi(m[2]) // "—": 0, never written
		rows[m[1]] = status
	}
	return rows
}

// TestReferenceListsEveryCode: docs/reference.md, the contract a caller
// reads, lists every refusal code and every failure code with the HTTP
// status the server gives it, and no code the server does not produce.
func TestReferenceListsEveryCode(t *testing.T) {
	refusals := map[string]int{}
	for _, c := range domain.Codes() {
		refusals[string(c)] = c.Status()
	}
	assert.Equal(t, refusals, referenceTable(t, "Refusals"), "the refusal table of docs/reference.md")

	failures := map[string]int{}
	for _, c := range app.FailureCodes() {
		failures[string(c)] = c.Status()
	}
	assert.Equal(t, failures, referenceTable(t, "Failures"), "the failure table of docs/reference.md")
}
