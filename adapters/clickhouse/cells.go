package clickhouse

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
)

// baseType is a column's type without the Nullable and LowCardinality
// wrappers, which change how a value travels, not what it is.
func baseType(t string) string {
	for {
		switch {
		case strings.HasPrefix(t, "Nullable(") && strings.HasSuffix(t, ")"):
			t = t[len("Nullable(") : len(t)-1]
		case strings.HasPrefix(t, "LowCardinality(") && strings.HasSuffix(t, ")"):
			t = t[len("LowCardinality(") : len(t)-1]
		default:
			return t
		}
	}
}

// cellScanner is the scan destination of one column: the driver hands it
// the column's Go value (nil for NULL), which it turns into a canonical
// cell. typ is the column's base type; asBool reads an integer as a
// boolean (a UInt8 column declared boolean: ClickHouse before 21.12 has no
// Bool type).
type cellScanner struct {
	typ    string
	asBool bool
	cell   domain.Cell
}

// decimal is the part of shopspring's Decimal (the driver's decimal
// values) a cell needs: value = Coefficient × 10^Exponent.
type decimal interface {
	Coefficient() *big.Int
	Exponent() int32
}

// Scan implements sql.Scanner, which every column of the driver accepts.
func (s *cellScanner) Scan(src any) error {
	c, err := s.convert(src)
	s.cell = c
	return err
}

var errUndecodable = errors.New("a value of an unexpected type came back")

func (s *cellScanner) convert(src any) (domain.Cell, error) {
	switch v := src.(type) {
	case nil:
		return domain.Null(), nil
	case int8:
		return s.integer(int64(v)), nil
	case int16:
		return s.integer(int64(v)), nil
	case int32:
		return s.integer(int64(v)), nil
	case int64:
		return s.integer(v), nil
	case uint8:
		return s.integer(int64(v)), nil
	case uint16:
		return s.integer(int64(v)), nil
	case uint32:
		return s.integer(int64(v)), nil
	case uint64:
		if v > math.MaxInt64 {
			return domain.Float(float64(v)), nil
		}
		return s.integer(int64(v)), nil
	case float32:
		return domain.Float(float64(v)), nil
	case float64:
		return domain.Float(v), nil
	case bool:
		return domain.Bool(v), nil
	case string:
		return domain.Text(v), nil
	case []byte:
		return domain.Text(string(v)), nil
	case time.Time:
		if strings.HasPrefix(s.typ, "DateTime") {
			return domain.Text(timestampText(v)), nil
		}
		return domain.DateCell(domain.DateOf(v.Year(), v.Month(), v.Day())), nil
	case *big.Int:
		if v.IsInt64() {
			return s.integer(v.Int64()), nil
		}
		f, _ := new(big.Float).SetInt(v).Float64()
		return domain.Float(f), nil
	case decimal:
		return decimalCell(v.Coefficient(), v.Exponent()), nil
	case fmt.Stringer:
		// UUID, IP addresses and other scalar types of run_sql: their own
		// text.
		return domain.Text(v.String()), nil
	}
	return domain.Null(), errUndecodable
}

func (s *cellScanner) integer(v int64) domain.Cell {
	if s.asBool {
		return domain.Bool(v != 0)
	}
	return domain.Int(v)
}

// timestampText is the engine's rendering of a timestamp: RFC 3339 in UTC
// with the shortest fraction of a second.
func timestampText(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

var bigTen = big.NewInt(10)

// decimalCell is an integer cell for an integral decimal that fits in 64
// bits and a real otherwise (sum over a Decimal column is a Decimal).
func decimalCell(coef *big.Int, exp int32) domain.Cell {
	v := new(big.Int).Set(coef)
	switch {
	case exp > 18:
		// Past int64 whatever the digits.
	case exp >= 0:
		v.Mul(v, new(big.Int).Exp(bigTen, big.NewInt(int64(exp)), nil))
		if v.IsInt64() {
			return domain.Int(v.Int64())
		}
	default:
		q, r := new(big.Int).QuoRem(v, new(big.Int).Exp(bigTen, big.NewInt(int64(-exp)), nil), new(big.Int))
		if r.Sign() == 0 && q.IsInt64() {
			return domain.Int(q.Int64())
		}
	}
	// The shortest decimal of the exact value's nearest float64.
	r := new(big.Rat).SetInt(coef)
	scale := new(big.Rat).SetInt(new(big.Int).Exp(bigTen, big.NewInt(int64(abs32(exp))), nil))
	if exp >= 0 {
		r.Mul(r, scale)
	} else {
		r.Quo(r, scale)
	}
	f, _ := r.Float64()
	return domain.Float(f)
}

func abs32(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}

// reader reads a statement's rows as canonical cells, refusing
// result_too_large at the first row past rowCap or past byteCap bytes of
// rendered cells (domain.MaxResultBytes when zero).
type reader struct {
	rowCap  int
	byteCap int
	columns []domain.Column // nil: named after the result (run_sql)
	bools   []bool          // per column: read integers as booleans
	tooMany string
}

// read reads rows to their end (the caller closes them).
func (r reader) read(rows driver.Rows) (*domain.RowSet, error) {
	types := rows.ColumnTypes()
	columns := r.columns
	if columns != nil && len(columns) != len(types) {
		return nil, fmt.Errorf("the statement returns %d columns, the plan has %d", len(types), len(columns))
	}
	if columns == nil {
		columns = make([]domain.Column, len(types))
		for i, ct := range types {
			columns[i] = domain.Column{Name: ct.Name()}
		}
	}
	scanners := make([]*cellScanner, len(types))
	dest := make([]any, len(types))
	for i, ct := range types {
		scanners[i] = &cellScanner{typ: baseType(ct.DatabaseTypeName()), asBool: i < len(r.bools) && r.bools[i]}
		dest[i] = scanners[i]
	}
	rs := &domain.RowSet{Columns: columns, Rows: [][]domain.Cell{}}
	size, byteCap := 0, r.byteCap
	if byteCap <= 0 {
		byteCap = domain.MaxResultBytes
	}
	for rows.Next() {
		if len(rs.Rows) == r.rowCap {
			return nil, refusal(domain.ResultTooLarge, r.tooMany, r.rowCap)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		row := make([]domain.Cell, len(types))
		for i, s := range scanners {
			row[i] = s.cell
			size += len(s.cell.Render())
		}
		if size > byteCap {
			return nil, refusal(domain.ResultTooLarge, sqlsource.DetailTooManyBytes, byteCap)
		}
		rs.Rows = append(rs.Rows, row)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return rs, nil
}
