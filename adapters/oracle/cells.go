package oracle

import (
	"database/sql"
	"encoding/base64"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
)

// column is what decoding a column needs: go-ora's name of its type and
// the type the plan declares for it (domain.TypeUnset when none).
type column struct {
	dbType   string
	declared domain.ColumnType
}

// cell is the canonical cell of v, a value go-ora returned for a column
// of c (see the package documentation, Cells).
func cell(v any, c column) (domain.Cell, error) {
	switch x := v.(type) {
	case nil:
		return domain.Null(), nil
	case string:
		if strings.EqualFold(c.dbType, "NUMBER") {
			return numberCell(x, c.declared)
		}
		return domain.Text(x), nil
	case int64:
		if c.declared == domain.TypeBoolean {
			return domain.Bool(x != 0), nil
		}
		return domain.Int(x), nil
	case float32:
		// BINARY_FLOAT: the shortest decimal of the 32-bit value, not its
		// widening.
		f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(x), 'g', -1, 32), 64)
		return domain.Float(f), nil
	case float64:
		return domain.Float(x), nil
	case bool:
		return domain.Bool(x), nil
	case time.Time:
		return timeCell(x, c)
	case []byte:
		return domain.Text(base64.StdEncoding.EncodeToString(x)), nil
	}
	if cc, ok := sqlsource.Scalar(v); ok {
		return cc, nil
	}
	return domain.Null(), fmt.Errorf("a value of type %T is not one sutura reads", v)
}

// numberCell is the cell of NUMBER's exact decimal text s: a boolean for
// a column declared boolean, otherwise sqlsource.DecimalCell of its digits.
func numberCell(s string, declared domain.ColumnType) (domain.Cell, error) {
	switch s {
	case "Infinity":
		return domain.Float(math.Inf(1)), nil
	case "-Infinity":
		return domain.Float(math.Inf(-1)), nil
	}
	coef, exp, ok := decimal(s)
	if !ok {
		return domain.Null(), fmt.Errorf("%q is not a NUMBER", s)
	}
	if declared == domain.TypeBoolean {
		return domain.Bool(coef.Sign() != 0), nil
	}
	return sqlsource.DecimalCell(coef, exp), nil
}

// decimal parses [-]digits[.digits] (either side may be empty, not both)
// as coef × 10^exp, exactly.
func decimal(s string) (*big.Int, int32, bool) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	digits := whole + frac
	if digits == "" || strings.Trim(digits, "0123456789") != "" || len(frac) > math.MaxInt16 {
		return nil, 0, false
	}
	coef, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return nil, 0, false
	}
	if neg {
		coef.Neg(coef)
	}
	return coef, -int32(len(frac)), true
}

// timeCell is the cell of a DATE or TIMESTAMP t: a date cell where the
// plan says a date (or, without one, a DATE at midnight), and otherwise
// RFC 3339 text in UTC: of the instant for a type with a time zone, of
// the wall-clock time read as UTC for the others.
func timeCell(t time.Time, c column) (domain.Cell, error) {
	typ := strings.ToUpper(c.dbType)
	if !strings.Contains(typ, "TZ") {
		t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
	}
	t = t.UTC()
	midnight := t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0
	asDate := c.declared == domain.TypeDate || c.declared == domain.TypeUnset && typ == "DATE" && midnight
	if !asDate {
		return domain.Text(sqlsource.TimestampText(t)), nil
	}
	d, err := domain.ParseDate(t.Format(time.DateOnly))
	if err != nil {
		return domain.Null(), fmt.Errorf("the date %s is outside the range sutura reads", t.Format(time.DateOnly))
	}
	return domain.DateCell(d), nil
}

// rowsOf is a *sql.Rows as sqlsource.Read reads it.
type rowsOf struct {
	rows *sql.Rows
	cols []column
	vals []any
	ptrs []any
}

func (r *rowsOf) Next() bool { return r.rows.Next() }
func (r *rowsOf) Err() error { return r.rows.Err() }

func (r *rowsOf) Scan(out []domain.Cell) error {
	if err := r.rows.Scan(r.ptrs...); err != nil {
		return err
	}
	for i, v := range r.vals {
		c, err := cell(v, r.cols[i])
		if err != nil {
			return fmt.Errorf("column %d: %w", i+1, err)
		}
		out[i] = c
	}
	return nil
}

// readRows reads rows as canonical cells: columns are plan's (declared
// their types), or (plan nil) named after the result's fields.
func readRows(rows *sql.Rows, declared []domain.ColumnType, plan []domain.Column, rowCap, byteCap int, tooMany string) (*domain.RowSet, error) {
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	names := make([]string, len(types))
	r := &rowsOf{rows: rows, cols: make([]column, len(types)), vals: make([]any, len(types)), ptrs: make([]any, len(types))}
	for i, t := range types {
		names[i] = t.Name()
		r.cols[i] = column{dbType: t.DatabaseTypeName()}
		if i < len(declared) {
			r.cols[i].declared = declared[i]
		}
		r.ptrs[i] = &r.vals[i]
	}
	columns, err := sqlsource.Columns(plan, names)
	if err != nil {
		return nil, err
	}
	return sqlsource.Read(r, columns, rowCap, byteCap, tooMany)
}
