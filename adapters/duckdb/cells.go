//go:build cgo

package duckdb

import (
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	duck "github.com/duckdb/duckdb-go/v2"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
)

// readRows reads at most rowCap rows of rows as canonical cells (see
// sqlsource.Read), refusing result_too_large past rowCap rows or byteCap
// bytes. columns, when not nil, are the plan's and must match the
// statement's in number; otherwise the columns are named after the
// result's (run_sql), with no role. The caller closes rows.
func readRows(rows *sql.Rows, rowCap, byteCap int, columns []domain.Column, tooMany string) (*domain.RowSet, error) {
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	names := make([]string, len(types))
	r := cellRows{Rows: rows, types: make([]string, len(types)), vals: make([]any, len(types)), ptrs: make([]any, len(types))}
	for i, t := range types {
		names[i] = t.Name()
		r.types[i] = t.DatabaseTypeName()
		r.ptrs[i] = &r.vals[i]
	}
	columns, err = sqlsource.Columns(columns, names)
	if err != nil {
		return nil, err
	}
	return sqlsource.Read(r, columns, rowCap, byteCap, tooMany)
}

// cellRows scans the driver's values and decodes them by their DuckDB
// type.
type cellRows struct {
	*sql.Rows
	types []string
	vals  []any
	ptrs  []any
}

func (r cellRows) Scan(row []domain.Cell) error {
	if err := r.Rows.Scan(r.ptrs...); err != nil {
		return err
	}
	for i, v := range r.vals {
		c, err := decode(r.types[i], v)
		if err != nil {
			return fmt.Errorf("column %d: %w", i+1, err)
		}
		row[i] = c
	}
	return nil
}

// decode turns one value of a result, of the DuckDB type named typ, into
// its canonical cell (the mapping is in the package documentation).
func decode(typ string, v any) (domain.Cell, error) {
	if c, ok := sqlsource.Scalar(v); ok {
		return c, nil
	}
	switch x := v.(type) {
	case duck.Decimal:
		if x.Value == nil {
			return domain.Null(), nil
		}
		return sqlsource.DecimalCell(x.Value, -int32(x.Scale)), nil
	case float32:
		// The decimal a FLOAT holds, not its float32 value widened
		// (0.1 is 0.1, not 0.10000000149011612).
		f, err := strconv.ParseFloat(strconv.FormatFloat(float64(x), 'g', -1, 32), 64)
		return domain.Float(f), err
	case time.Time:
		return timeCell(typ, x), nil
	}
	return otherCell(typ, v)
}

// timeCell renders a DATE as a date cell, a TIME as HH:MM:SS[.ffffff] text,
// and every timestamp as RFC 3339 text in UTC with the shortest fraction of
// a second, as the engine renders them (a TIMESTAMP without time zone is
// read as UTC wall-clock time).
func timeCell(typ string, t time.Time) domain.Cell {
	if inf := infinity(typ, t); inf != "" {
		return domain.Text(inf)
	}
	switch {
	case typ == "DATE":
		return domain.DateCell(domain.DateFromTime(t))
	case strings.HasPrefix(typ, "TIME") && !strings.HasPrefix(typ, "TIMESTAMP"):
		return domain.Text(t.Format("15:04:05.999999999"))
	}
	return domain.Text(sqlsource.TimestampText(t))
}

// infinity is "infinity" or "-infinity" for DuckDB's infinite DATE and
// TIMESTAMP values (the largest and smallest value of their storage), as
// PostgreSQL writes them, and "" for any other value.
func infinity(typ string, t time.Time) string {
	const day = 24 * 60 * 60
	switch {
	case typ == "DATE" && t.Unix() == math.MaxInt32*day, strings.HasPrefix(typ, "TIMESTAMP") && t.UnixMicro() == math.MaxInt64:
		return "infinity"
	case typ == "DATE" && t.Unix() == -math.MaxInt32*day, strings.HasPrefix(typ, "TIMESTAMP") && t.UnixMicro() == -math.MaxInt64:
		return "-infinity"
	}
	return ""
}

// otherCell renders the types only run_sql can meet as text: UUIDs in
// their usual form, BLOBs as \xHH escapes (DuckDB's own rendering),
// intervals as DuckDB writes them, and lists, structs, maps and unions
// as JSON.
func otherCell(typ string, v any) (domain.Cell, error) {
	switch x := v.(type) {
	case []byte:
		if typ == "UUID" && len(x) == 16 {
			u := duck.UUID(x)
			return domain.Text(u.String()), nil
		}
		var b strings.Builder
		for _, c := range x {
			if c >= 0x20 && c < 0x7f && c != '\\' {
				b.WriteByte(c)
				continue
			}
			b.WriteString(`\x`)
			b.WriteString(strings.ToUpper(hex.EncodeToString([]byte{c})))
		}
		return domain.Text(b.String()), nil
	case duck.Interval:
		return domain.Text(intervalText(x)), nil
	}
	b, err := json.Marshal(jsonable(v))
	if err != nil {
		return domain.Null(), fmt.Errorf("a value of type %s cannot be rendered", typ)
	}
	return domain.Text(string(b)), nil
}

// intervalText writes an interval as DuckDB does: "1 year 2 months 3 days
// 04:05:06.5", leaving out the parts that are zero.
func intervalText(iv duck.Interval) string {
	var parts []string
	unit := func(n int64, one string) {
		if n == 0 {
			return
		}
		s := strconv.FormatInt(n, 10) + " " + one
		if n != 1 && n != -1 {
			s += "s"
		}
		parts = append(parts, s)
	}
	unit(int64(iv.Months/12), "year")
	unit(int64(iv.Months%12), "month")
	unit(int64(iv.Days), "day")
	if iv.Micros != 0 || len(parts) == 0 {
		us := iv.Micros
		sign := ""
		if us < 0 {
			sign, us = "-", -us
		}
		d := time.Duration(us) * time.Microsecond
		h, m, s := int64(d/time.Hour), int64(d%time.Hour/time.Minute), d%time.Minute
		frac := strings.TrimRight(fmt.Sprintf("%06d", int64(s%time.Second/time.Microsecond)), "0")
		clock := fmt.Sprintf("%s%02d:%02d:%02d", sign, h, m, int64(s/time.Second))
		if frac != "" {
			clock += "." + frac
		}
		parts = append(parts, clock)
	}
	return strings.Join(parts, " ")
}

// jsonable makes the driver's nested values encodable: maps with keys
// that are not strings become lists of key and value pairs, and cells
// inside are written as their canonical text.
func jsonable(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonable(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonable(e)
		}
		return out
	case duck.OrderedMap:
		out := make([]any, 0, x.Len())
		keys, vals := x.Keys(), x.Values()
		for i := range keys {
			out = append(out, []any{jsonable(keys[i]), jsonable(vals[i])})
		}
		return out
	case duck.Union:
		return map[string]any{x.Tag: jsonable(x.Value)}
	case nil, bool, string:
		return x
	}
	c, err := decode("", v)
	if err != nil || c.IsNull() {
		return nil
	}
	return c.Render()
}
