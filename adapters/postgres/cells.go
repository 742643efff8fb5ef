package postgres

import (
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
)

// binaryResults asks for the binary format of the types decoded exactly
// below; every other type comes back as the server's text.
var binaryResults = pgx.QueryResultFormatsByOID{
	pgtype.Int2OID: pgtype.BinaryFormatCode, pgtype.Int4OID: pgtype.BinaryFormatCode,
	pgtype.Int8OID: pgtype.BinaryFormatCode, pgtype.Float4OID: pgtype.BinaryFormatCode,
	pgtype.Float8OID: pgtype.BinaryFormatCode, pgtype.NumericOID: pgtype.BinaryFormatCode,
	pgtype.BoolOID: pgtype.BinaryFormatCode, pgtype.DateOID: pgtype.BinaryFormatCode,
	pgtype.TimestampOID: pgtype.BinaryFormatCode, pgtype.TimestamptzOID: pgtype.BinaryFormatCode,
	pgtype.TextOID: pgtype.BinaryFormatCode, pgtype.VarcharOID: pgtype.BinaryFormatCode,
	pgtype.BPCharOID: pgtype.BinaryFormatCode, pgtype.NameOID: pgtype.BinaryFormatCode,
}

// readRows reads at most rowCap rows of rows as canonical cells, refusing
// result_too_large at the first row past rowCap or past
// byteCap bytes of rendered cells. columns, when not nil, are the
// plan's and must match the statement's in number; otherwise the columns
// are named after the result's fields (run_sql), with no role. The caller
// closes rows.
func readRows(rows pgx.Rows, rowCap, byteCap int, columns []domain.Column, tooMany string) (*domain.RowSet, error) {
	fields := rows.FieldDescriptions()
	if columns != nil && len(columns) != len(fields) {
		// A statement the server refused has no fields; its error comes
		// with closing the rows.
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("the statement returns %d columns, the plan has %d", len(fields), len(columns))
	}
	if columns == nil {
		columns = make([]domain.Column, len(fields))
		for i, f := range fields {
			columns[i] = domain.Column{Name: f.Name}
		}
	}
	rs := &domain.RowSet{Columns: columns, Rows: [][]domain.Cell{}}
	m := rows.Conn().TypeMap()
	size := 0
	for rows.Next() {
		if len(rs.Rows) == rowCap {
			return nil, refusal(domain.ResultTooLarge, tooMany, rowCap)
		}
		raw := rows.RawValues()
		row := make([]domain.Cell, len(fields))
		for i := range fields {
			c, err := decode(m, &fields[i], raw[i])
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

// errUndecodable is a value in binary format of a type decode does not
// know; binaryResults asks binary only for the types it knows.
var errUndecodable = errors.New("a value of an unexpected type came back in binary format")

// decode turns one value of a result into its canonical cell (the mapping
// is in the package documentation).
func decode(m *pgtype.Map, f *pgconn.FieldDescription, raw []byte) (domain.Cell, error) {
	if raw == nil {
		return domain.Null(), nil
	}
	oid, format := f.DataTypeOID, f.Format
	switch oid {
	case pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID:
		var v int64
		err := m.Scan(oid, format, raw, &v)
		return domain.Int(v), err
	case pgtype.Float4OID, pgtype.Float8OID:
		var v float64
		err := m.Scan(oid, format, raw, &v)
		return domain.Float(v), err
	case pgtype.NumericOID:
		var v pgtype.Numeric
		if err := m.Scan(oid, format, raw, &v); err != nil {
			return domain.Null(), err
		}
		return numericCell(v)
	case pgtype.BoolOID:
		var v bool
		err := m.Scan(oid, format, raw, &v)
		return domain.Bool(v), err
	case pgtype.DateOID:
		var v pgtype.Date
		if err := m.Scan(oid, format, raw, &v); err != nil {
			return domain.Null(), err
		}
		if v.InfinityModifier != pgtype.Finite {
			return domain.Text(v.InfinityModifier.String()), nil
		}
		return domain.DateCell(domain.DateFromTime(v.Time)), nil
	case pgtype.TimestampOID:
		var v pgtype.Timestamp
		if err := m.Scan(oid, format, raw, &v); err != nil {
			return domain.Null(), err
		}
		if v.InfinityModifier != pgtype.Finite {
			return domain.Text(v.InfinityModifier.String()), nil
		}
		return domain.Text(timestampText(v.Time)), nil
	case pgtype.TimestamptzOID:
		var v pgtype.Timestamptz
		if err := m.Scan(oid, format, raw, &v); err != nil {
			return domain.Null(), err
		}
		if v.InfinityModifier != pgtype.Finite {
			return domain.Text(v.InfinityModifier.String()), nil
		}
		return domain.Text(timestampText(v.Time)), nil
	case pgtype.TextOID, pgtype.VarcharOID, pgtype.BPCharOID, pgtype.NameOID:
		var v string
		err := m.Scan(oid, format, raw, &v)
		return domain.Text(v), err
	}
	if format != pgtype.TextFormatCode {
		return domain.Null(), errUndecodable
	}
	return domain.Text(string(raw)), nil
}

// timestampText is the engine's rendering of a timestamp: RFC 3339 in UTC
// with the shortest fraction of a second. A timestamp without time zone
// is read as UTC wall-clock time.
func timestampText(t time.Time) string {
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location()).
		UTC().Format(time.RFC3339Nano)
}

var bigTen = big.NewInt(10)

// numericCell is an integer cell for an integral numeric that fits in 64
// bits and a real otherwise; NaN and the infinities are null, as every
// non-finite real is.
func numericCell(n pgtype.Numeric) (domain.Cell, error) {
	if !n.Valid || n.NaN || n.InfinityModifier != pgtype.Finite {
		return domain.Null(), nil
	}
	if n.Int == nil {
		return domain.Int(0), nil
	}
	v := new(big.Int).Set(n.Int)
	switch {
	case n.Exp > 18:
		// Past int64 whatever the digits (10^19 already is).
	case n.Exp >= 0:
		v.Mul(v, new(big.Int).Exp(bigTen, big.NewInt(int64(n.Exp)), nil))
		if v.IsInt64() {
			return domain.Int(v.Int64()), nil
		}
	default:
		q, r := new(big.Int).QuoRem(v, new(big.Int).Exp(bigTen, big.NewInt(int64(-n.Exp)), nil), new(big.Int))
		if r.Sign() == 0 && q.IsInt64() {
			return domain.Int(q.Int64()), nil
		}
	}
	f, err := n.Float64Value()
	if err != nil {
		return domain.Null(), err
	}
	return domain.Float(f.Float64), nil
}
