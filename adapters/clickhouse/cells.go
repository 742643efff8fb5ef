package clickhouse

import (
	"errors"
	"fmt"
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
	err    error // of the last value; the driver's wrapping of it unwraps to nothing
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
	s.cell, s.err = c, err
	return err
}

// errUndecodable is a value of a type the adapter does not render.
var errUndecodable = errors.New("a value of an unexpected type came back")

func (s *cellScanner) convert(src any) (domain.Cell, error) {
	if c, ok := sqlsource.Scalar(src); ok {
		if s.asBool && c.Kind() == domain.KindInt {
			return domain.Bool(c.IntValue() != 0), nil
		}
		return c, nil
	}
	switch v := src.(type) {
	case float32:
		return domain.Float(float64(v)), nil
	case []byte:
		return domain.Text(string(v)), nil
	case time.Time:
		if strings.HasPrefix(s.typ, "DateTime") {
			return domain.Text(sqlsource.TimestampText(v)), nil
		}
		return domain.DateCell(domain.DateOf(v.Year(), v.Month(), v.Day())), nil
	case decimal:
		return sqlsource.DecimalCell(v.Coefficient(), v.Exponent()), nil
	case fmt.Stringer:
		// UUID, IP addresses and other scalar types of run_sql: their own
		// text.
		return domain.Text(v.String()), nil
	}
	return domain.Null(), fmt.Errorf("%w: a column of type %s", errUndecodable, s.typ)
}

// reader reads a statement's rows as canonical cells (see
// sqlsource.Read), refusing result_too_large past rowCap rows or byteCap
// bytes (domain.MaxResultBytes when zero).
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
	names := make([]string, len(types))
	for i, ct := range types {
		names[i] = ct.Name()
	}
	columns, err := sqlsource.Columns(r.columns, names)
	if err != nil {
		return nil, err
	}
	cr := cellRows{Rows: rows, scanners: make([]*cellScanner, len(types)), dest: make([]any, len(types))}
	for i, ct := range types {
		cr.scanners[i] = &cellScanner{typ: baseType(ct.DatabaseTypeName()), asBool: i < len(r.bools) && r.bools[i]}
		cr.dest[i] = cr.scanners[i]
	}
	return sqlsource.Read(cr, columns, r.rowCap, r.byteCap, r.tooMany)
}

// cellRows scans the driver's values through cellScanners.
type cellRows struct {
	driver.Rows
	scanners []*cellScanner
	dest     []any
}

func (r cellRows) Scan(row []domain.Cell) error {
	if err := r.Rows.Scan(r.dest...); err != nil {
		for _, s := range r.scanners {
			if s.err != nil {
				return s.err
			}
		}
		return err
	}
	for i, s := range r.scanners {
		row[i] = s.cell
	}
	return nil
}
