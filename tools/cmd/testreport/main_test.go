package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func ev(action, pkg, test, output string) string {
	return `{"Action":"` + action + `","Package":"` + pkg + `","Test":"` + test + `","Output":` + quote(output) + "}\n"
}

func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
	return `"` + r.Replace(s) + `"`
}

func TestReport(t *testing.T) {
	tests := []struct {
		name       string
		stream     string
		failed     bool
		notRun     []string
		printed    []string
		notPrinted []string
	}{
		{
			name: "a passing package prints its line only",
			stream: ev("run", "x/a", "TestA", "") + ev("output", "x/a", "TestA", "=== RUN   TestA\n") +
				ev("output", "x/a", "TestA", "    a_test.go:3: chatter\n") + ev("pass", "x/a", "TestA", "") +
				ev("output", "x/a", "", "ok  \tx/a\t0.01s\n") + ev("pass", "x/a", "", ""),
			printed:    []string{"ok  \tx/a\t0.01s"},
			notPrinted: []string{"chatter", "=== RUN"},
		},
		{
			name: "a failing test prints its whole output and fails",
			stream: ev("output", "x/b", "TestB", "    b_test.go:9: wanted 2, got 3\n") +
				ev("output", "x/b", "TestB", "--- FAIL: TestB (0.00s)\n") + ev("fail", "x/b", "TestB", "") +
				ev("output", "x/b", "", "FAIL\tx/b\t0.01s\n") + ev("fail", "x/b", "", ""),
			failed:  true,
			printed: []string{"wanted 2, got 3", "FAIL\tx/b"},
		},
		{
			name: "a NOT RUN skip is printed and collected once",
			stream: ev("output", "x/c", "TestC1", "    c_test.go:5: NOT RUN: postgres (SUTURA_PG_URL unset)\n") +
				ev("skip", "x/c", "TestC1", "") +
				ev("output", "x/c", "TestC2/sub", "    c_test.go:5: NOT RUN: postgres (SUTURA_PG_URL unset)\n") +
				ev("skip", "x/c", "TestC2/sub", "") +
				ev("output", "x/c", "TestC3", "    c_test.go:7: short mode\n") + ev("skip", "x/c", "TestC3", "") +
				ev("output", "x/c", "", "ok  \tx/c\t0.01s\n"),
			notRun:     []string{"NOT RUN: postgres (SUTURA_PG_URL unset)"},
			printed:    []string{"c.TestC1: NOT RUN: postgres (SUTURA_PG_URL unset)"},
			notPrinted: []string{"short mode", "TestC2"},
		},
		{
			name: "a package that dies prints the output of the tests still running",
			stream: ev("run", "x/e", "TestE", "") + ev("output", "x/e", "TestE", "=== RUN   TestE\n") +
				ev("output", "x/e", "TestE", "    e_test.go:4: waiting for the server\n") +
				ev("output", "x/e", "TestE", "panic: test timed out after 10m0s\n") +
				ev("output", "x/e", "", "FAIL\tx/e\t600.0s\n") + ev("fail", "x/e", "", ""),
			failed:  true,
			printed: []string{"e.TestE did not end before its package failed", "waiting for the server", "test timed out after 10m0s"},
		},
		{
			name:    "a build failure fails",
			stream:  `{"ImportPath":"x/d","Action":"build-output","Output":"d.go:1:1: expected 'package'\n"}` + "\n" + `{"ImportPath":"x/d","Action":"build-fail"}` + "\n",
			failed:  true,
			printed: []string{"expected 'package'"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			r, err := report(strings.NewReader(tt.stream), &out)
			require.NoError(t, err)
			assert.Equal(t, tt.failed, r.failed)
			assert.Equal(t, tt.notRun, r.notRun)
			for _, p := range tt.printed {
				assert.Contains(t, out.String(), p)
			}
			for _, p := range tt.notPrinted {
				assert.NotContains(t, out.String(), p)
			}
		})
	}
}
