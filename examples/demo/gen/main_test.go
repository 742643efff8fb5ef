package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRun(t *testing.T) {
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	require.Equal(t, 0, run([]string{"--rows", "50", "--format", "csv", "--out", dir}, &out, &errOut), errOut.String())
	for _, table := range []string{"regions", "products", "customers", "orders"} {
		_, err := os.Stat(filepath.Join(dir, table+".csv"))
		assert.NoError(t, err)
	}
	assert.Contains(t, out.String(), "orders.csv\t50 rows")
}

func TestRunUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{},
		{"--rows", "10"},
		{"--out", dir},
		{"--rows", "0", "--out", dir},
		{"--rows", "10", "--out", dir, "extra"},
		{"--nope"},
	} {
		var out, errOut bytes.Buffer
		assert.Equal(t, 2, run(args, &out, &errOut), "%q", args)
	}
	var out, errOut bytes.Buffer
	assert.Equal(t, 1, run([]string{"--rows", "10", "--format", "json", "--out", dir}, &out, &errOut))
	assert.Contains(t, errOut.String(), "format")
}
