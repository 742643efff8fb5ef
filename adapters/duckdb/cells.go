//go:build cgo

package duckdb

import (
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	duck "github.com/duckdb/duckdb-go/v2"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
)

// readRows reads at most rowCap rows of rows as canonical cells, refusing
// result_too_large at the first row past rowCap or past
// byteCap bytes of rendered cells. columns, when not nil, are the
// plan's and must match the statement's in number; otherwise the columns
// are named after the result's (run_sql), with no role. The caller closes
// rows.
func readRows(rows *sql.Rows, rowCap, byteCap int, columns []domain.Column, tooMany string) (*domain.RowSet, error) {
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	if columns != nil && len(columns) != len(types) {
		return nil, fmt.Errorf("the statement returns %d columns, the plan has %d", len(types), len(columns))
	}
	if columns == nil {
		columns = make([]domain.Column, len(types))
		for i, t := range types {
			columns[i] = domain.Column{Name: t.Name()}
		}
	}
	names := make([]string, len(types))
	for i, t := range types {
		names[i] = t.DatabaseTypeName()
	}
	rs := &domain.RowSet{Columns: columns, Rows: [][]domain.Cell{}}
	vals := make([]any, len(types))
	ptrs := make([]any, len(types))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	size := 0
	for rows.Next() {
		if len(rs.Rows) == rowCap {
			return nil, refusal(domain.ResultTooLarge, tooMany, rowCap)
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]domain.Cell, len(types))
		for i, v := range vals {
			c, err := decode(names[i], v)
			if err != nil {
				return nil, fmt.Errorf("column %d: %w", i+1, err)
			}
			row[i] = c
			size += len(c.Render())
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

// decode turns one value of a result, of the DuckDB type named typ, into
// its canonical cell (the mapping is in the package documentation).
func decode(typ string, v any) (domain.Cell, error) {
	switch x := v.(type) {
	case nil:
		return domain.Null(), nil
	case bool:
		return domain.Bool(x), nil
	case int8:
		return domain.Int(int64(x)), nil
	case int16:
		return domain.Int(int64(x)), nil
	case int32:
		return domain.Int(int64(x)), nil
	case int64:
		return domain.Int(x), nil
	case uint8:
		return domain.Int(int64(x)), nil
	case uint16:
		return domain.Int(int64(x)), nil
	case uint32:
		return domain.Int(int64(x)), nil
	case uint64:
		if x <= math.MaxInt64 {
			return domain.Int(int64(x)), nil
		}
		return domain.Float(float64(x)), nil
	case *big.Int:
		// HUGEINT and UHUGEINT: sum over an integer column is one.
		if x.IsInt64() {
			return domain.Int(x.Int64()), nil
		}
		f, _ := new(big.Float).SetInt(x).Float64()
		return domain.Float(f), nil
	case duck.Decimal:
		return decimalCell(x)
	case float32:
		// The decimal a FLOAT holds, not its float32 value widened
		// (0.1 is 0.1, not 0.10000000149011612).
		f, err := strconv.ParseFloat(strconv.FormatFloat(float64(x), 'g', -1, 32), 64)
		return domain.Float(f), err
	case float64:
		return domain.Float(x), nil
	case string:
		return domain.Text(x), nil
	case time.Time:
		return timeCell(typ, x), nil
	}
	return otherCell(typ, v)
}

// decimalCell is an integer cell for an integral decimal that fits in 64
// bits and otherwise the real nearest to its exact decimal value.
func decimalCell(d duck.Decimal) (domain.Cell, error) {
	if d.Value == nil {
		return domain.Null(), nil
	}
	q, r := new(big.Int).QuoRem(d.Value, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.Scale)), nil), new(big.Int))
	if r.Sign() == 0 && q.IsInt64() {
		return domain.Int(q.Int64()), nil
	}
	f, err := strconv.ParseFloat(d.String(), 64)
	if err != nil && !strings.Contains(err.Error(), "range") {
		return domain.Null(), err
	}
	return domain.Float(f), nil
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
	return domain.Text(time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location()).
		UTC().Format(time.RFC3339Nano))
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
