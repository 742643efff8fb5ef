package clickhouse

import (
	"math"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"sutura.dev/domain"
)

// dec is a decimal as the driver hands it over: Coefficient × 10^Exponent.
type dec struct {
	coef *big.Int
	exp  int32
}

func (d dec) Coefficient() *big.Int { return d.coef }
func (d dec) Exponent() int32       { return d.exp }

// TestCells: every Go value the driver hands a scanner becomes the
// canonical cell the engine renders for the same value.
func TestCells(t *testing.T) {
	at := time.Date(2025, 3, 1, 23, 30, 0, 500_000_000, time.FixedZone("x", 2*3600))
	for _, tc := range []struct {
		typ    string
		asBool bool
		src    any
		want   string
		kind   domain.Kind
	}{
		{"Int64", false, int64(-42), "-42", domain.KindInt},
		{"UInt8", false, uint8(200), "200", domain.KindInt},
		{"UInt8", true, uint8(1), "true", domain.KindBool},
		{"UInt8", true, uint8(0), "false", domain.KindBool},
		{"UInt64", false, uint64(math.MaxInt64), "9223372036854775807", domain.KindInt},
		{"UInt64", false, uint64(math.MaxUint64), "18446744073709551615", domain.KindDecimal},
		{"Float64", false, math.Nextafter(0.3, 1), "0.30000000000000004", domain.KindFloat},
		{"Float64", false, 1e21, "1000000000000000000000", domain.KindFloat},
		{"Float64", false, math.Inf(1), "null", domain.KindNull},
		{"Float64", false, 2.0, "2", domain.KindFloat},
		{"Bool", false, true, "true", domain.KindBool},
		{"String", false, "Kitchen", "Kitchen", domain.KindText},
		{"Date", false, time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC), "2025-03-01", domain.KindDate},
		{"Date", false, time.Date(2025, 3, 1, 0, 0, 0, 0, time.FixedZone("w", -5*3600)), "2025-03-01", domain.KindDate},
		{"DateTime('UTC')", false, at, "2025-03-01T21:30:00.5Z", domain.KindText},
		{"Decimal(38, 2)", false, dec{big.NewInt(12300), -2}, "123", domain.KindInt},
		{"Decimal(38, 2)", false, dec{big.NewInt(12345), -2}, "123.45", domain.KindDecimal},
		{"Decimal(38, 0)", false, dec{big.NewInt(7), 3}, "7000", domain.KindInt},
		{"Int128", false, new(big.Int).Lsh(big.NewInt(1), 70), "1180591620717411303424", domain.KindDecimal},
		{"Nullable(Int64)", false, nil, "null", domain.KindNull},
	} {
		s := &cellScanner{typ: baseType(tc.typ), asBool: tc.asBool}
		require.NoError(t, s.Scan(tc.src), "%s %v", tc.typ, tc.src)
		require.Equal(t, tc.want, s.cell.Render(), "%s %v", tc.typ, tc.src)
		require.Equal(t, tc.kind, s.cell.Kind(), "%s %v", tc.typ, tc.src)
	}
	s := &cellScanner{typ: "Array(Int64)"}
	require.ErrorIs(t, s.Scan([]int64{1}), errUndecodable)
}

func TestBaseType(t *testing.T) {
	require.Equal(t, "String", baseType("LowCardinality(Nullable(String))"))
	require.Equal(t, "DateTime('UTC')", baseType("Nullable(DateTime('UTC'))"))
	require.Equal(t, "Array(Nullable(Int64))", baseType("Array(Nullable(Int64))"))
}

func TestParseServer(t *testing.T) {
	for _, tc := range []struct {
		v                          string
		params, executeAs, multiJn bool
	}{
		{"18.16.1", false, false, false},
		{"22.8.5.29", true, false, true},
		{"25.11.1", true, true, true},
		{"26.5.1.1", true, true, true},
	} {
		s, err := parseServer(tc.v)
		require.NoError(t, err)
		require.Equal(t, tc.params, s.QueryParameters(), tc.v)
		require.Equal(t, tc.executeAs, s.ExecuteAs(), tc.v)
		require.Equal(t, tc.multiJn, s.MultipleJoins(), tc.v)
	}
	_, err := parseServer("unknown")
	require.Error(t, err)
}
