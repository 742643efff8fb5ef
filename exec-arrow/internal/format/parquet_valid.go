package format

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"sutura.dev/exec-arrow/internal/column"
)

// ValidReader reads the validity of one column chunk, batch by batch,
// without materialising its values.
type ValidReader struct {
	all    bool // the footer says every value is present
	rd     file.ColumnChunkReader
	maxDef int16
	text   bool // empty text is null, so text needs the value lengths
	defs   []int16
	texts  []parquet.ByteArray
	other  any // a scratch slice of the physical type
}

// NewValidReader reads the validity of column leaf of row group rg.
func NewValidReader(rg *file.RowGroupReader, leaf int, descr *schema.Column) (*ValidReader, error) {
	v := &ValidReader{maxDef: descr.MaxDefinitionLevel(), text: descr.PhysicalType() == parquet.Types.ByteArray}
	cc, err := rg.MetaData().ColumnChunk(leaf)
	if err != nil {
		return nil, err
	}
	st, _ := cc.Statistics()
	noNulls := v.maxDef == 0 || (st != nil && st.HasNullCount() && st.NullCount() == 0)
	noEmpty := !v.text
	if s, ok := st.(*metadata.ByteArrayStatistics); ok && s.HasMinMax() && len(s.Min()) > 0 {
		noEmpty = true // the smallest text is not empty, so none is
	}
	if noNulls && noEmpty {
		v.all = true
		return v, nil
	}
	if v.rd, err = rg.Column(leaf); err != nil {
		return nil, err
	}
	return v, nil
}

// Next returns the validity bitmap of the next n values (nil: all valid).
func (v *ValidReader) Next(n int) (_ []byte, err error) {
	defer func() {
		if recover() != nil { // the Parquet library decoding levels (see nextRecord)
			err = errParquetPanic
		}
	}()
	if v.all {
		return nil, nil
	}
	if cap(v.defs) < n {
		v.defs = make([]int16, n)
	}
	defs := v.defs[:n]
	var got, vals int
	for got < n {
		total, read, err := readLevels(v, n-got, defs[got:], vals)
		if err != nil {
			return nil, err
		}
		if total == 0 {
			return nil, fmt.Errorf("the column chunk ends early")
		}
		if v.maxDef == 0 {
			for i := got; i < got+int(total); i++ {
				defs[i] = 0
			}
		}
		got += int(total)
		vals += read
	}
	bits := make([]byte, bitutil.BytesForBits(int64(n)))
	j := 0
	for i, d := range defs {
		if d < v.maxDef {
			continue
		}
		if !v.text || len(v.texts[j]) > 0 {
			bitutil.SetBit(bits, i)
		}
		j++
	}
	return bits, nil
}

// addValidity appends to b the validity of the next n values v reads.
func addValidity(b *column.ValidBuilder, v *ValidReader, n int) error {
	for n > 0 {
		k := min(n, column.ChunkRows)
		bits, err := v.Next(k)
		if err != nil {
			return err
		}
		if b.Check && bits == nil {
			n -= k // a check keeps nothing: no row to visit
			continue
		}
		for i := 0; i < k; i++ {
			b.Add(bits == nil || bitutil.BitIsSet(bits, i))
		}
		n -= k
	}
	return nil
}

// readLevels reads up to n levels (and their values, discarded) into defs;
// for text, the values land in v.texts at offset vals so their lengths can
// be checked.
func readLevels(v *ValidReader, n int, defs []int16, vals int) (int64, int, error) {
	if v.maxDef == 0 {
		defs = nil
	}
	switch r := v.rd.(type) {
	case *file.ByteArrayColumnChunkReader:
		if len(v.texts) < vals+n {
			v.texts = append(v.texts, make([]parquet.ByteArray, vals+n-len(v.texts))...)
		}
		return r.ReadBatch(int64(n), v.texts[vals:vals+n], defs, nil)
	case *file.BooleanColumnChunkReader:
		return r.ReadBatch(int64(n), scratchOf[bool](v, n), defs, nil)
	case *file.Int32ColumnChunkReader:
		return r.ReadBatch(int64(n), scratchOf[int32](v, n), defs, nil)
	case *file.Int64ColumnChunkReader:
		return r.ReadBatch(int64(n), scratchOf[int64](v, n), defs, nil)
	case *file.Int96ColumnChunkReader:
		return r.ReadBatch(int64(n), scratchOf[parquet.Int96](v, n), defs, nil)
	case *file.Float32ColumnChunkReader:
		return r.ReadBatch(int64(n), scratchOf[float32](v, n), defs, nil)
	case *file.Float64ColumnChunkReader:
		return r.ReadBatch(int64(n), scratchOf[float64](v, n), defs, nil)
	case *file.FixedLenByteArrayColumnChunkReader:
		return r.ReadBatch(int64(n), scratchOf[parquet.FixedLenByteArray](v, n), defs, nil)
	}
	return 0, 0, fmt.Errorf("unsupported Parquet column type %s", v.rd.Type())
}

// scratchOf is v's scratch slice of type T, at least n long.
func scratchOf[T any](v *ValidReader, n int) []T {
	s, _ := v.other.([]T)
	if len(s) < n {
		s = make([]T, n)
		v.other = s
	}
	return s[:n]
}
