package format

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
)

// StatsZone is the day range of a date or timestamp column in a row group,
// from its statistics; with noNulls, only when they also say it holds no
// null.
func StatsZone(rgm *metadata.RowGroupMetaData, leaf int, descr *schema.Column, noNulls bool) (column.DayZone, bool) {
	cc, err := rgm.ColumnChunk(leaf)
	if err != nil {
		return column.DayZone{}, false
	}
	st, err := cc.Statistics()
	if err != nil {
		return column.DayZone{}, false
	}
	z, nulls, ok := ZoneOf(st, descr)
	return z, ok && !(noNulls && nulls)
}

// ZoneOf is the day range that decoded statistics st of a date or
// timestamp column give, and whether the column may hold a null (the
// statistics do not say it holds none); ok is false when st tells no range.
func ZoneOf(st metadata.TypedStatistics, descr *schema.Column) (z column.DayZone, nulls, ok bool) {
	if st == nil || !st.HasMinMax() {
		return column.DayZone{}, false, false
	}
	nulls = descr.MaxDefinitionLevel() > 0 && (!st.HasNullCount() || st.NullCount() > 0)
	toDay, ok := ParquetDay(descr)
	if !ok {
		return column.DayZone{}, false, false
	}
	switch s := st.(type) {
	case *metadata.Int32Statistics:
		return column.DayZone{Min: toDay(int64(s.Min())), Max: toDay(int64(s.Max()))}, nulls, true
	case *metadata.Int64Statistics:
		return column.DayZone{Min: toDay(s.Min()), Max: toDay(s.Max())}, nulls, true
	}
	return column.DayZone{}, false, false
}

// BatchColumn makes a batch column of the prototype's type from one
// decoded Arrow array: without a copy when the array already has the
// column's physical form, through a builder otherwise (which converts,
// and refuses a value that is not of the type, naming its row).
func BatchColumn(proto *column.Column, arr arrow.Array, path string, base int, inferred bool) (*column.Column, error) {
	if arr.Data().Offset() == 0 && !inferred {
		switch a := arr.(type) {
		case *array.Int64:
			if proto.Type == domain.TypeInteger {
				return WithID(column.New(proto.Name, proto.Type, a)), nil
			}
		case *array.Float64:
			if proto.Type == domain.TypeFloat {
				return WithID(column.New(proto.Name, proto.Type, a)), nil
			}
		case *array.Boolean:
			if proto.Type == domain.TypeBoolean {
				return WithID(column.New(proto.Name, proto.Type, a)), nil
			}
		case *array.Date32:
			if proto.Type == domain.TypeDate {
				return WithID(column.New(proto.Name, proto.Type, a)), nil
			}
		case *array.Dictionary:
			if c := dictColumn(proto, a); c != nil {
				return c, nil
			}
		}
	}
	b := column.NewBuilderSpec(proto.Type, proto.Spec, false)
	if inferred {
		b = column.ViaText{Builder: b}
	}
	if err := AppendArrow(b, arr); err != nil {
		if ae, ok := err.(*ArrowErr); ok {
			return nil, LoadError(path, proto.Name, base+ae.Row+1, "row", ae.Err)
		}
		return nil, fmt.Errorf("file %s, column %s: %w", path, proto.Name, err)
	}
	return WithID(b.Finish(proto.Name)), nil
}

// dictColumn wraps a dictionary-encoded text array as a text column,
// marking the rows whose text is empty as null (empty text is null in
// every format); nil when the array is not int32 indexes over strings.
func dictColumn(proto *column.Column, a *array.Dictionary) *column.Column {
	if proto.Type != domain.TypeText {
		return nil
	}
	idx, ok := a.Indices().(*array.Int32)
	if !ok || idx.Data().Offset() != 0 {
		return nil
	}
	d, ok := a.Dictionary().(*array.String)
	if !ok {
		return nil
	}
	c := &column.Column{Name: proto.Name, Type: domain.TypeText, Arr: a, N: a.Len(), Idx: idx.Int32Values(), ID: column.ColumnIDs.Add(1)}
	c.Dict = make([]string, d.Len())
	empty := -1
	for i := range c.Dict {
		c.Dict[i] = d.Value(i)
		if c.Dict[i] == "" || d.IsNull(i) {
			empty = i
		}
	}
	if a.NullN() > 0 {
		c.Valid = a.NullBitmapBytes()
	}
	if empty >= 0 {
		bits := make([]byte, bitutil.BytesForBits(int64(c.N)))
		for r := 0; r < c.N; r++ {
			if (c.Valid == nil || bitutil.BitIsSet(c.Valid, r)) && c.Dict[c.Idx[r]] != "" && d.IsValid(int(c.Idx[r])) {
				bitutil.SetBit(bits, r)
			}
		}
		c.Valid = bits
	}
	c.Bytes = column.ArrayBytes(a.Data())
	return c
}

// WithID numbers c afresh, so per-batch caches keyed by a column ID
// (column.DictMap) never take it for another batch's column.
func WithID(c *column.Column) *column.Column {
	c.ID = column.ColumnIDs.Add(1)
	return c
}

// ChunkStats are the statistics of column leaf of a row group as a filter
// on a text or integer column reads them; ok is false when the chunk has
// none, or its stored type is not the one the engine's values are (text
// as UTF-8 byte arrays, integers as signed INT32 or INT64).
func ChunkStats(rgm *metadata.RowGroupMetaData, leaf int, descr *schema.Column, typ domain.ColumnType) (column.ChunkStats, bool) {
	cc, err := rgm.ColumnChunk(leaf)
	if err != nil || descr.MaxRepetitionLevel() != 0 {
		return column.ChunkStats{}, false
	}
	st, err := cc.Statistics()
	if err != nil || st == nil || !st.HasMinMax() || descr.MaxDefinitionLevel() > 0 && !st.HasNullCount() {
		return column.ChunkStats{}, false
	}
	out := column.ChunkStats{Nulls: descr.MaxDefinitionLevel() > 0 && st.NullCount() > 0}
	if _, _, _, _, ok := pageKind(descr, &column.Column{Type: typ}); !ok {
		return column.ChunkStats{}, false
	}
	switch s := st.(type) {
	case *metadata.ByteArrayStatistics:
		out.Text, out.Lo, out.Hi = true, string(s.Min()), string(s.Max())
		out.Nulls = out.Nulls || out.Lo == ""
	case *metadata.Int64Statistics:
		out.ILo, out.IHi = s.Min(), s.Max()
	case *metadata.Int32Statistics:
		out.ILo, out.IHi = int64(s.Min()), int64(s.Max())
	default:
		return column.ChunkStats{}, false
	}
	return out, typ == domain.TypeText || typ == domain.TypeInteger
}
