package datagen

import (
	"io"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// kind is the type of a column's values.
type kind uint8

const (
	kindInt  kind = iota // int64
	kindDate             // days since 1970-01-01, held in cell.i
	kindBool             // cell.b
	kindText             // cell.s
)

// column is one declared column of a table.
type column struct {
	name     string
	kind     kind
	nullable bool
}

// cell is one value; which field is meaningful depends on the column kind.
type cell struct {
	null bool
	i    int64
	b    bool
	s    string
}

// table is a named list of columns and a function that streams its rows.
// The row slice passed to emit is reused; a sink must not keep it.
type table struct {
	name    string
	columns []column
	rows    func(emit func([]cell) error) error
}

// sink receives the rows of one table.
type sink interface {
	writeRow(row []cell) error
	close() error
}

// csvSink writes RFC 4180 CSV with a header row.
type csvSink struct {
	w    io.Writer
	cols []column
	buf  []byte
}

func newCSVSink(w io.Writer, cols []column) (*csvSink, error) {
	s := &csvSink{w: w, cols: cols}
	for i, c := range cols {
		if i > 0 {
			s.buf = append(s.buf, ',')
		}
		s.buf = appendCSVText(s.buf, c.name)
	}
	s.buf = append(s.buf, '\n')
	_, err := s.w.Write(s.buf)
	return s, err
}

func (s *csvSink) writeRow(row []cell) error {
	b := s.buf[:0]
	for i, c := range s.cols {
		if i > 0 {
			b = append(b, ',')
		}
		v := row[i]
		if v.null {
			continue
		}
		switch c.kind {
		case kindInt:
			b = strconv.AppendInt(b, v.i, 10)
		case kindDate:
			b = appendDate(b, v.i)
		case kindBool:
			b = strconv.AppendBool(b, v.b)
		case kindText:
			b = appendCSVText(b, v.s)
		}
	}
	b = append(b, '\n')
	s.buf = b
	_, err := s.w.Write(b)
	return err
}

func (s *csvSink) close() error { return nil }

// appendCSVText appends a text field, quoting it only when CSV requires it.
// An empty text would read back as a null, so the generator never emits one.
func appendCSVText(b []byte, v string) []byte {
	if !strings.ContainsAny(v, ",\"\r\n") && strings.TrimSpace(v) == v {
		return append(b, v...)
	}
	b = append(b, '"')
	b = append(b, strings.ReplaceAll(v, `"`, `""`)...)
	return append(b, '"')
}

// parquetBatchRows is the number of rows buffered before a record batch is
// written; each batch becomes one Parquet row group.
const parquetBatchRows = 128 * 1024

// parquetSink buffers rows in an Arrow record builder and writes each full
// batch as a row group.
type parquetSink struct {
	fw   *pqarrow.FileWriter
	rb   *array.RecordBuilder
	cols []column
	n    int
}

func newParquetSink(w io.Writer, cols []column) (*parquetSink, error) {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		var dt arrow.DataType
		switch c.kind {
		case kindInt:
			dt = arrow.PrimitiveTypes.Int64
		case kindDate:
			dt = arrow.FixedWidthTypes.Date32
		case kindBool:
			dt = arrow.FixedWidthTypes.Boolean
		case kindText:
			dt = arrow.BinaryTypes.String
		}
		fields[i] = arrow.Field{Name: c.name, Type: dt, Nullable: c.nullable}
	}
	schema := arrow.NewSchema(fields, nil)
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithMaxRowGroupLength(parquetBatchRows),
	)
	fw, err := pqarrow.NewFileWriter(schema, w, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return nil, err
	}
	rb := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	rb.Reserve(parquetBatchRows)
	return &parquetSink{fw: fw, rb: rb, cols: cols}, nil
}

func (s *parquetSink) writeRow(row []cell) error {
	for i, c := range s.cols {
		v := row[i]
		fb := s.rb.Field(i)
		if v.null {
			fb.AppendNull()
			continue
		}
		switch c.kind {
		case kindInt:
			fb.(*array.Int64Builder).Append(v.i)
		case kindDate:
			fb.(*array.Date32Builder).Append(arrow.Date32(v.i))
		case kindBool:
			fb.(*array.BooleanBuilder).Append(v.b)
		case kindText:
			fb.(*array.StringBuilder).Append(v.s)
		}
	}
	s.n++
	if s.n == parquetBatchRows {
		return s.flush()
	}
	return nil
}

func (s *parquetSink) flush() error {
	if s.n == 0 {
		return nil
	}
	rec := s.rb.NewRecordBatch()
	defer rec.Release()
	s.n = 0
	return s.fw.Write(rec)
}

func (s *parquetSink) close() error {
	err := s.flush()
	s.rb.Release()
	if cerr := s.fw.Close(); err == nil {
		err = cerr
	}
	return err
}

// daysFromCivil returns the number of days from 1970-01-01 to the given
// proleptic Gregorian date (H. Hinnant's algorithm, integer only).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// civilFromDays is the inverse of daysFromCivil.
func civilFromDays(z int64) (y, m, d int64) {
	z += 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	y = yoe + era*400
	if m <= 2 {
		y++
	}
	return y, m, d
}

// appendDate appends the date as YYYY-MM-DD.
func appendDate(b []byte, days int64) []byte {
	y, m, d := civilFromDays(days)
	b = append(b, byte('0'+y/1000%10), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-')
	b = append(b, byte('0'+m/10), byte('0'+m%10), '-')
	return append(b, byte('0'+d/10), byte('0'+d%10))
}
