package postgres

import (
	"errors"
	"fmt"

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

// readRows reads at most rowCap rows of rows as canonical cells (see
// sqlsource.Read), refusing result_too_large past rowCap rows or byteCap
// bytes. columns, when not nil, are the plan's and must match the
// statement's in number; otherwise the columns are named after the
// result's fields (run_sql), with no role. The caller closes rows.
func readRows(rows pgx.Rows, rowCap, byteCap int, columns []domain.Column, tooMany string) (*domain.RowSet, error) {
	fields := rows.FieldDescriptions()
	if columns != nil && len(columns) != len(fields) {
		// A statement the server refused has no fields; its error comes
		// with closing the rows.
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Name
	}
	columns, err := sqlsource.Columns(columns, names)
	if err != nil {
		return nil, err
	}
	return sqlsource.Read(cellRows{rows, rows.Conn().TypeMap(), fields}, columns, rowCap, byteCap, tooMany)
}

// cellRows decodes pgx's raw values into canonical cells.
type cellRows struct {
	pgx.Rows
	m      *pgtype.Map
	fields []pgconn.FieldDescription
}

func (r cellRows) Scan(row []domain.Cell) error {
	raw := r.RawValues()
	for i := range r.fields {
		c, err := decode(r.m, &r.fields[i], raw[i])
		if err != nil {
			return fmt.Errorf("column %d: %w", i+1, err)
		}
		row[i] = c
	}
	return nil
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
		return domain.Text(sqlsource.TimestampText(v.Time)), nil
	case pgtype.TimestamptzOID:
		var v pgtype.Timestamptz
		if err := m.Scan(oid, format, raw, &v); err != nil {
			return domain.Null(), err
		}
		if v.InfinityModifier != pgtype.Finite {
			return domain.Text(v.InfinityModifier.String()), nil
		}
		return domain.Text(sqlsource.TimestampText(v.Time)), nil
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
	return sqlsource.DecimalCell(n.Int, n.Exp), nil
}
