package format

import (
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"sutura.dev/exec-arrow/internal/column"
)

// columnPages opens the pages of a column chunk; a panic of the Parquet
// library on a malformed chunk is errParquetPanic (see nextRecord).
func columnPages(rg *file.RowGroupReader, leaf int) (pr file.PageReader, err error) {
	defer func() {
		if recover() != nil {
			pr, err = nil, errParquetPanic
		}
	}()
	return rg.GetColumnPageReader(leaf)
}

// readPage returns the next page of pr, nil at the end of the chunk; a
// panic of the Parquet library on a malformed page is errParquetPanic.
func readPage(pr file.PageReader) (p file.Page, err error) {
	defer func() {
		if recover() != nil {
			p, err = nil, errParquetPanic
		}
	}()
	if !pr.Next() {
		return nil, pr.Err()
	}
	return pr.Page(), nil
}

// ParquetDay returns how a stored value of a date or timestamp column
// becomes a day; ok is false for any other column. (A timestamp's logical
// type is the value schema.TimestampLogicalType, never a pointer.)
func ParquetDay(c *schema.Column) (toDay func(int64) int32, ok bool) {
	switch lt := c.LogicalType().(type) {
	case schema.DateLogicalType:
		if c.PhysicalType() == parquet.Types.Int32 {
			return func(v int64) int32 { return int32(v) }, true
		}
	case schema.TimestampLogicalType:
		if c.PhysicalType() != parquet.Types.Int64 {
			return nil, false
		}
		perMicro := int64(1)
		switch lt.TimeUnit() {
		case schema.TimeUnitMillis:
			return func(v int64) int32 { return column.DayOfMicros(v * 1000) }, true
		case schema.TimeUnitNanos:
			perMicro = 1000
		}
		return func(v int64) int32 { return column.DayOfMicros(floorDiv(v, perMicro)) }, true
	}
	return nil, false
}
