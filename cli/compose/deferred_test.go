package compose

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	engine "sutura.dev/exec-arrow"
)

// TestRefreshReadsTheTextFilesStartUpWouldSample: start-up reads only a
// sample of a large CSV file, but a refresh reads the new bundle's text
// files whole before it swaps: a bad value past the sample refuses the
// refresh naming its file, column and line, and the bundle in force keeps
// serving; the process's own deferred check (nothing deferred) passes.
func TestRefreshReadsTheTextFilesStartUpWouldSample(t *testing.T) {
	cat, data := copyTree(t, shopCatalog), copyTree(t, shopData)
	p, err := Open(t.Context(), configEnvData(t, cat, data, ""), &bytes.Buffer{}, Options{})
	require.NoError(t, err)
	defer p.Close()
	require.NoError(t, p.CheckDeferred(t.Context()))
	before := p.Catalog.Bundle().Digest()

	bad := engine.SampleRows + 100
	var b strings.Builder
	b.WriteString("refunded_on,amount\n")
	for i := range engine.SampleRows + 1000 {
		v := fmt.Sprint(i % 7)
		if i == bad {
			v = "oops"
		}
		fmt.Fprintf(&b, "2025-02-%02d,%s\n", 1+i%28, v)
	}
	require.NoError(t, os.WriteFile(filepath.Join(data, "refunds.csv"), []byte(b.String()), 0o600))
	addRefunds(t, cat)
	err = p.Refresh(t.Context())
	require.Error(t, err)
	assert.ErrorContains(t, err, fmt.Sprintf("file refunds.csv, column amount, line %d", bad+2))
	assert.NotContains(t, err.Error(), "oops")
	assert.Equal(t, before, p.Catalog.Bundle().Digest(), "the bundle in force keeps serving")
}
