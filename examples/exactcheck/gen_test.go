package exactcheck

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
)

// decCol is a decimal column of the table: its scale, the most digits its
// coefficients have, and its declared precision.
type decCol struct {
	name      string
	precision int
	scale     int
	digits    int // the largest coefficients have this many digits
}

// The decimal columns: money at scale 2, values near the 18-digit limit
// of an int64 coefficient (scale 6), and values of 35 digits (scale 9:
// ClickHouse's test tables are Decimal(38, 9)) whose sums reach 38 digits.
var decCols = []decCol{
	{"d2", 18, 2, 9},
	{"d6", 18, 6, 18},
	{"d9", 38, 9, 35},
}

// row is one generated row; a nil pointer is null.
type row struct {
	day    domain.Date
	grp    string // "" is null
	region string
	decs   []*big.Int // coefficients at each decCol's scale
	f      *float64
}

var firstDay = domain.DateOf(2023, 1, 1)

// generate returns n seeded rows over 2023 and 2024.
func generate(seed uint64, n int) []row {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	groups := []string{"alpha", "beta", "gamma", ""}
	regions := []string{"north", "south"}
	out := make([]row, n)
	for i := range out {
		r := row{day: firstDay + domain.Date(rng.IntN(731)), grp: groups[rng.IntN(len(groups))], region: regions[rng.IntN(2)]}
		for _, c := range decCols {
			if rng.IntN(10) == 0 {
				r.decs = append(r.decs, nil)
				continue
			}
			r.decs = append(r.decs, coefficient(rng, c.digits))
		}
		if rng.IntN(8) != 0 {
			// Mixed magnitudes: 1e-3 to 1e12, either sign.
			f := (rng.Float64() + 0.1) * math.Pow(10, float64(rng.IntN(16)-3))
			if rng.IntN(3) == 0 {
				f = -f
			}
			r.f = &f
		}
		out[i] = r
	}
	return out
}

// coefficient is a random coefficient of up to digits digits, often of
// exactly digits (near the limit), either sign, sometimes zero or with
// trailing zeros.
func coefficient(rng *rand.Rand, digits int) *big.Int {
	n := digits
	if rng.IntN(3) == 0 {
		n = 1 + rng.IntN(digits)
	}
	var b strings.Builder
	b.WriteByte(byte('1' + rng.IntN(9)))
	for range n - 1 {
		b.WriteByte(byte('0' + rng.IntN(10)))
	}
	v, _ := new(big.Int).SetString(b.String(), 10)
	switch rng.IntN(10) {
	case 0:
		v.SetInt64(0)
	case 1:
		v.Neg(v)
		fallthrough
	case 2:
		v.Mul(v, big.NewInt(100)) // trailing zeros, when they fit
		if len(new(big.Int).Abs(v).String()) > digits {
			v.Quo(v, big.NewInt(100))
		}
	}
	if rng.IntN(3) == 0 {
		v.Neg(v)
	}
	return v
}

// decText is coefficient v at scale s written as a database exports it:
// exactly s fractional digits.
func decText(v *big.Int, s int) string {
	neg := v.Sign() < 0
	d := new(big.Int).Abs(v).String()
	if len(d) <= s {
		d = strings.Repeat("0", s-len(d)+1) + d
	}
	t := d[:len(d)-s]
	if s > 0 {
		t += "." + d[len(d)-s:]
	}
	if neg {
		t = "-" + t
	}
	return t
}

func floatText(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

var header = []string{"day", "grp", "region", "d2", "d6", "d9", "f"}

// csvText writes rows as CSV with a header (an empty field is null).
func csvText(rows []row) []byte {
	var b bytes.Buffer
	b.WriteString(strings.Join(header, ",") + "\n")
	for _, r := range rows {
		fields := []string{r.day.String(), r.grp, r.region}
		for i, c := range decCols {
			if r.decs[i] == nil {
				fields = append(fields, "")
				continue
			}
			fields = append(fields, decText(r.decs[i], c.scale))
		}
		if r.f == nil {
			fields = append(fields, "")
		} else {
			fields = append(fields, floatText(*r.f))
		}
		b.WriteString(strings.Join(fields, ",") + "\n")
	}
	return b.Bytes()
}

// ndjsonText writes rows as NDJSON: decimals and doubles as JSON number
// literals, nulls as null.
func ndjsonText(rows []row) []byte {
	var b bytes.Buffer
	for _, r := range rows {
		var parts []string
		str := func(k, v string) {
			if v == "" {
				parts = append(parts, strconv.Quote(k)+":null")
				return
			}
			q, _ := json.Marshal(v)
			parts = append(parts, strconv.Quote(k)+":"+string(q))
		}
		num := func(k, v string) {
			if v == "" {
				v = "null"
			}
			parts = append(parts, strconv.Quote(k)+":"+v)
		}
		str("day", r.day.String())
		str("grp", r.grp)
		str("region", r.region)
		for i, c := range decCols {
			if r.decs[i] == nil {
				num(c.name, "")
			} else {
				num(c.name, decText(r.decs[i], c.scale))
			}
		}
		if r.f == nil {
			num("f", "")
		} else {
			num("f", floatText(*r.f))
		}
		b.WriteString("{" + strings.Join(parts, ",") + "}\n")
	}
	return b.Bytes()
}

// parquetBytes writes rows as Parquet with DECIMAL columns of each decCol's
// precision and scale, in row groups of 100 rows.
func parquetBytes(t *testing.T, rows []row) []byte {
	fields := []arrow.Field{
		{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "grp", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "region", Type: arrow.BinaryTypes.String, Nullable: true},
	}
	for _, c := range decCols {
		fields = append(fields, arrow.Field{Name: c.name, Type: &arrow.Decimal128Type{Precision: int32(c.precision), Scale: int32(c.scale)}, Nullable: true})
	}
	fields = append(fields, arrow.Field{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true})
	schema := arrow.NewSchema(fields, nil)
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(schema, &buf, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(100)), pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for _, r := range rows {
		b.Field(0).(*array.Date32Builder).Append(arrow.Date32(r.day))
		for i, s := range []string{r.grp, r.region} {
			if s == "" {
				b.Field(1 + i).AppendNull()
			} else {
				b.Field(1 + i).(*array.StringBuilder).Append(s)
			}
		}
		for i := range decCols {
			if r.decs[i] == nil {
				b.Field(3 + i).AppendNull()
				continue
			}
			b.Field(3 + i).(*array.Decimal128Builder).Append(decimal128.FromBigInt(r.decs[i]))
		}
		if r.f == nil {
			b.Field(6).AppendNull()
		} else {
			b.Field(6).(*array.Float64Builder).Append(*r.f)
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// writeTable writes data as dir/<sub>/facts.<ext> and returns the
// directory the engine reads.
func writeTable(t *testing.T, dir, sub, ext string, data []byte) string {
	d := filepath.Join(dir, sub)
	require.NoError(t, os.MkdirAll(d, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(d, "facts."+ext), data, 0o644))
	return d
}
