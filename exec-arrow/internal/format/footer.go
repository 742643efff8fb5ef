package format

import (
	"github.com/apache/arrow-go/v18/parquet"
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
