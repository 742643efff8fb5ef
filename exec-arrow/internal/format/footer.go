package format

import (
	"math"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"sutura.dev/domain"
)

// FooterVouches reports whether a Parquet column's type, as its footer
// states it, guarantees that every value it can hold converts into the
// declared type typ (AppendArrow into the builder NewBuilder(typ) cannot
// fail): a signed integer, or an unsigned one of at most 32 bits, for
// integer; a date for date; a timestamp or a date for timestamp; a UTF-8
// string for text; a boolean for boolean. Anything else — a float (NaN
// and infinities are refused), a decimal, an unsigned 64-bit integer, an
// untyped or a repeated column, a conversion from text — must be read to
// be checked.
func FooterVouches(descr *schema.Column, typ domain.ColumnType) bool {
	if descr.MaxRepetitionLevel() != 0 {
		return false
	}
	pt := descr.PhysicalType()
	switch typ {
	case domain.TypeInteger:
		if pt != parquet.Types.Int32 && pt != parquet.Types.Int64 {
			return false
		}
		switch lt := descr.LogicalType().(type) {
		case nil, schema.NoLogicalType:
			switch descr.ConvertedType() {
			case schema.ConvertedTypes.None, schema.ConvertedTypes.Int8, schema.ConvertedTypes.Int16,
				schema.ConvertedTypes.Int32, schema.ConvertedTypes.Int64:
				return true
			}
		case schema.IntLogicalType:
			return lt.IsSigned() || lt.BitWidth() <= 32
		}
		return false
	case domain.TypeDate:
		_, ok := descr.LogicalType().(schema.DateLogicalType)
		return ok && pt == parquet.Types.Int32
	case domain.TypeTimestamp:
		_, ok := ParquetDay(descr) // a date or an INT64 timestamp
		return ok
	case domain.TypeText:
		_, ok := descr.LogicalType().(schema.StringLogicalType)
		return ok && pt == parquet.Types.ByteArray
	case domain.TypeBoolean:
		return pt == parquet.Types.Boolean
	}
	return false
}

// StatsSpan is the smallest and largest value of the integer leaf column
// leaf over the row groups of md that keep marks, from their statistics
// (row groups with no value but nulls left out); ok is false when a row
// group has none that bound it, or the column is unsigned.
func StatsSpan(md *metadata.FileMetaData, leaf int, keep []bool) (lo, hi int64, ok bool) {
	lo, hi = math.MaxInt64, math.MinInt64
	descr := md.Schema.Column(leaf)
	if lt, isInt := descr.LogicalType().(*schema.IntLogicalType); isInt && !lt.IsSigned() {
		return 0, 0, false
	}
	for rg, kept := range keep {
		if !kept {
			continue
		}
		rgm := md.RowGroup(rg)
		cc, err := rgm.ColumnChunk(leaf)
		if err != nil {
			return 0, 0, false
		}
		st, err := cc.Statistics()
		if err != nil || st == nil {
			return 0, 0, false
		}
		if st.HasNullCount() && st.NullCount() >= rgm.NumRows() {
			continue
		}
		if !st.HasMinMax() {
			return 0, 0, false
		}
		switch s := st.(type) {
		case *metadata.Int64Statistics:
			lo, hi = min(lo, s.Min()), max(hi, s.Max())
		case *metadata.Int32Statistics:
			lo, hi = min(lo, int64(s.Min())), max(hi, int64(s.Max()))
		default:
			return 0, 0, false
		}
	}
	return lo, hi, true
}
