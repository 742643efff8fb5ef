package mdcatalog

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A decimal column's precision and scale are read as numbers, digested,
// checked, and written back by the catalogue writer.
func TestDecimalPrecisionAndScale(t *testing.T) {
	base := fixture(t, "minimal")
	const p = "models/orders.md"
	fsys := replace(t, base, p, "    type: decimal\n", "    type: decimal\n    precision: 18\n    scale: 2\n")
	b, err := Load(fsys, "v1")
	require.NoError(t, err)
	orders, _ := b.Model("orders")
	amount, _ := orders.Column("amount")
	require.NotNil(t, amount.Scale)
	assert.Equal(t, 18, amount.Precision)
	assert.Equal(t, 2, *amount.Scale)

	plain, err := Load(base, "v1")
	require.NoError(t, err)
	assert.NotEqual(t, plain.Digest(), b.Digest(), "a declared scale changes the meaning")

	zero := replace(t, base, p, "    type: decimal\n", "    type: decimal\n    scale: 0\n")
	bz, err := Load(zero, "v1")
	require.NoError(t, err)
	o, _ := bz.Model("orders")
	a, _ := o.Column("amount")
	require.NotNil(t, a.Scale, "scale 0 is declared, not absent")
	assert.Equal(t, 0, *a.Scale)

	for name, tc := range map[string]struct{ old, new string }{
		"precision past 38":    {"    type: decimal\n", "    type: decimal\n    precision: 39\n"},
		"scale over precision": {"    type: decimal\n", "    type: decimal\n    precision: 4\n    scale: 5\n"},
		"not a number":         {"    type: decimal\n", "    type: decimal\n    scale: two\n"},
		"on a boolean":         {"    type: boolean\n", "    type: boolean\n    scale: 2\n"},
	} {
		_, err := Load(replace(t, base, p, tc.old, tc.new), "v1")
		assert.Error(t, err, name)
	}
}

func TestDecimalPrecisionAndScaleWriteBack(t *testing.T) {
	fsys := replace(t, fixture(t, "minimal"), "models/orders.md", "    type: decimal\n", "    type: decimal\n    precision: 18\n    scale: 0\n")
	b, err := Load(fsys, "v1")
	require.NoError(t, err)
	files, err := Documents(*b.Definitions(), *b.Knowledge())
	require.NoError(t, err)
	out := fstest.MapFS{}
	for _, f := range files {
		out[f.Path] = &fstest.MapFile{Data: f.Data}
	}
	again, err := Load(out, "v1")
	require.NoError(t, err)
	assert.Equal(t, b.Digest(), again.Digest(), "written and read again, the catalogue means the same")
}
