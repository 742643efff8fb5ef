package semantic

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPositionalArgs(t *testing.T) {
	st := Statement{Params: []Param{{Name: "$1", Kind: ParamDate, Value: "2025-03-04"}, {Name: "$2", Kind: ParamText, Value: "online"}}}
	args, err := st.PositionalArgs()
	require.NoError(t, err)
	assert.Equal(t, []any{time.Date(2025, 3, 4, 0, 0, 0, 0, time.UTC), "online"}, args)
	args, err = Statement{Params: []Param{{Name: ":1", Kind: ParamText, Value: "x"}}}.PositionalArgs()
	require.NoError(t, err)
	assert.Equal(t, []any{"x"}, args)

	for _, bad := range [][]Param{
		{{Name: "$2", Kind: ParamText, Value: "x"}},
		{{Name: "@p1", Kind: ParamText, Value: "x"}},
		{{Name: "1", Kind: ParamText, Value: "x"}},
		{{Name: "$1", Kind: ParamDate, Value: "2025-02-30"}},
		{{Name: "$1", Kind: "number", Value: "1"}},
	} {
		_, err := Statement{Params: bad}.PositionalArgs()
		assert.Error(t, err, "%+v", bad)
	}
}
