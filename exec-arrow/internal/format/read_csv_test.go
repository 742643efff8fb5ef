package format

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/files"
)

// loadCSV reads data as CSV part t.csv into builders of wants with
// readCSV (reference false) or readCSVReference, and renders what it read
// (loadPart).
func loadCSV(data []byte, wants []Want, reference bool) string {
	ref := func(l *Loader, p files.Part) error { return l.readCSVReference(p, bytes.NewReader(data)) }
	return loadPart("t.csv", files.FormatCSV, data, wants, reference, ref)
}

// loadPart reads data as part path into builders of wants, with the
// Loader or (reference) with ref, and renders what it read: every row's
// cells, then the segments. A failure is its error's text.
func loadPart(path string, format files.Format, data []byte, wants []Want, reference bool, ref func(*Loader, files.Part) error) string {
	fsys := fstest.MapFS{path: {Data: data}}
	p := files.Part{Path: path, Format: format, Size: int64(len(data))}
	l := NewLoader(context.Background(), fsys, wants, false, nil)
	var err error
	if reference {
		err = ref(l, p)
	} else {
		err = l.ReadPart(p)
	}
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	cols, err := l.Columns()
	if err != nil {
		return "error: " + err.Error()
	}
	for r := range l.Rows {
		for _, w := range wants {
			fmt.Fprintf(&b, "%q ", cols[w.Name].Cell(int32(r)).Render())
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "rows %d segments %v", l.Rows, l.Segs)
	return b.String()
}

// headerWants are wants of the columns data's header names, each once
// (text, but the second wanted as an integer when typed), but the k-th
// when bit k mod 8 of skip is set, or of a column the header lacks when
// encoding/csv reads no header or every column is skipped.
func headerWants(data []byte, typed bool, skip uint8) []Want {
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte{0xEF, 0xBB, 0xBF})))
	header, err := r.Read()
	if err != nil {
		return []Want{{Name: "a", Type: domain.TypeText}}
	}
	var wants []Want
	seen := map[string]bool{}
	for k, h := range header {
		if seen[h] || skip>>(k%8)&1 == 1 {
			continue
		}
		seen[h] = true
		w := Want{Name: h, Type: domain.TypeText}
		if typed && len(wants) == 1 {
			w.Type = domain.TypeInteger
		}
		wants = append(wants, w)
	}
	if len(wants) == 0 {
		return []Want{{Name: "a", Type: domain.TypeText}}
	}
	return wants
}

// TestCSVLoaderReadsAsEncodingCSV: the Loader's CSV reading gives the
// rows, cells and segments encoding/csv gives, and on input it does not
// read itself the reference reader's error, word for word.
func TestCSVLoaderReadsAsEncodingCSV(t *testing.T) {
	long := "a,b\n" + strings.Repeat("x,1\n\"q\"\"r\",2\r\n", 70_000) + "last,3"
	cases := map[string]string{
		"plain":                      "a,b\n1,2\n3,4\n",
		"some columns":               "a,b,c,d\n1,2,3,4\n,6,,\n\"9\",10,\"\",12\n",
		"byte-order mark":            "\xEF\xBB\xBFa,b\n1,2\n",
		"blank lines first":          "\n\r\n\na,b\n1,2\n",
		"blank lines between":        "a,b\n1,2\n\n\r\n3,4\n",
		"carriage return kept":       "a,b\nx,y\r\r\n",
		"carriage return at the end": "a,b\nx,y\r",
		"quoted line ends":           "a,b\n\"one\r\ntwo\",\"3\"\r\n\"x\"\"y\",4",
		"quoted header":              "\"a\",\"b\"\n1,2\n",
		"empty fields are null":      "a,b\n,\n1,\n",
		"no header":                  "",
		"only blank lines":           "\n\n",
		"wrong width":                "a,b\n1,2\n3\n",
		"bare quote":                 "a,b\n1,x\"y\n",
		"unterminated quote":         "a,b\n1,\"x\n",
		"duplicate header":           "a,a\n1,2\n",
		"not an integer":             "a,b\n1,2\n3,x\n",
		"over many reads":            long,
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			for _, typed := range []bool{false, true} {
				for _, skip := range []uint8{0, 0b101} {
					wants := headerWants([]byte(data), typed, skip)
					want := loadCSV([]byte(data), wants, true)
					got := loadCSV([]byte(data), wants, false)
					if got != want {
						t.Fatalf("typed %v, skip %b:\nreadCSV:\n%.2000s\nencoding/csv:\n%.2000s", typed, skip, got, want)
					}
				}
			}
		})
	}
	if got := loadCSV([]byte("a,b\nx,y\r\r\n"), []Want{{Name: "b", Type: domain.TypeText}}, false); !strings.Contains(got, `"y\r"`) {
		t.Fatalf("a carriage return before another one and a line feed is the field's: %q", got)
	}
}

// FuzzLoaderCSV: for any bytes as a CSV part, the Loader reads what
// encoding/csv reads record by record — the same rows, cells and segments
// — or fails with the reference reader's error, word for word; it never
// fails where encoding/csv reads the part.
func FuzzLoaderCSV(f *testing.F) {
	for _, s := range []string{
		"a,b\n1,2\n", "a,b\nx,y\r\r\n", "\n\na,b\n\"1\r\n2\",3\r\n", "a,b\n1,x\"y\n",
		"\xEF\xBB\xBFa,b\r\n1,2", "a,\"b\"\"c\"\n,\n", "a\n1\n2,3\n", "a,b\n1,\"x\r\n",
	} {
		f.Add([]byte(s), false, uint8(0))
		f.Add([]byte(s), true, uint8(0b101))
	}
	f.Fuzz(func(t *testing.T, data []byte, typed bool, skip uint8) {
		wants := headerWants(data, typed, skip)
		want := loadCSV(data, wants, true)
		if got := loadCSV(data, wants, false); got != want {
			t.Fatalf("readCSV:\n%.2000s\nencoding/csv:\n%.2000s", got, want)
		}
	})
}

// TestCSVLoadReservesAhead: a load that keeps its values takes room for
// the whole part once its first block is read, at the size of the records
// so far, and meters it then; a check keeps nothing and reserves nothing.
// So does an NDJSON load.
func TestCSVLoadReservesAhead(t *testing.T) {
	const rows = 12 * column.ChunkRows
	var csvText, ndjson strings.Builder
	csvText.WriteString("id,name\n")
	for i := range rows {
		fmt.Fprintf(&csvText, "%07d,n%03d\n", i, i%100)
		fmt.Fprintf(&ndjson, "{\"id\":%d,\"name\":\"n%03d\"}\n", i, i%100)
	}
	for _, part := range []struct {
		path   string
		format files.Format
		data   string
	}{{"t.csv", files.FormatCSV, csvText.String()}, {"t.ndjson", files.FormatNDJSON, ndjson.String()}} {
		data := []byte(part.data)
		fsys := fstest.MapFS{part.path: {Data: data}}
		p := files.Part{Path: part.path, Format: part.format, Size: int64(len(data))}
		for _, check := range []bool{false, true} {
			var l *Loader
			var early int64 // the most metered while two blocks at most were read
			meter := func(total int64) error {
				if l.Rows <= 2*column.ChunkRows {
					early = max(early, total)
				}
				return nil
			}
			l = NewLoader(context.Background(), fsys, []Want{{Name: "id", Type: domain.TypeInteger}, {Name: "name", Type: domain.TypeText}}, check, meter)
			require.NoError(t, l.ReadPart(p))
			require.Equal(t, rows, l.Rows)
			whole := int64(rows)*(4+1) + 2*int64(rows)/8 // IntBuilder and textBuilder ReserveBytes (ids that fit 32 bits, a hundred names: a byte a row), and a bit a row of validity each
			if check {
				assert.Less(t, early, whole/10, "%s: a check reserves nothing", part.path)
				continue
			}
			assert.GreaterOrEqual(t, early, whole, "%s: the whole part's room, metered after its first block", part.path)
			assert.Less(t, early, 2*whole, "%s: no more than the part holds, and the dictionary so far", part.path)
			cols, err := l.Columns()
			require.NoError(t, err)
			assert.Equal(t, domain.Cell(domain.Int(int64(rows-1))), cols["id"].Cell(rows-1))
		}
	}
}

// TestTextLoadMetersItsBuffers: what the CSV and NDJSON readers' buffers
// grow by is part of what a load meters, as they grow: a record of 16 MiB
// is refused by a working set of 8 MiB before the next row, and read
// within one of 64 MiB.
func TestTextLoadMetersItsBuffers(t *testing.T) {
	long := strings.Repeat("x", 16<<20)
	errFull := errors.New("the working set is full")
	for _, part := range []struct {
		path   string
		format files.Format
		data   string
	}{
		{"t.csv", files.FormatCSV, "a,b\n1," + long + "\n2,y\n"},
		{"t.ndjson", files.FormatNDJSON, `{"a":1,"b":"` + long + `"}` + "\n" + `{"a":2,"b":"y"}`},
	} {
		data := []byte(part.data)
		fsys := fstest.MapFS{part.path: {Data: data}}
		p := files.Part{Path: part.path, Format: part.format, Size: int64(len(data))}
		for _, limit := range []int64{8 << 20, 64 << 20} {
			var most int64
			meter := func(total int64) error {
				most = max(most, total)
				if total > limit {
					return errFull
				}
				return nil
			}
			l := NewLoader(context.Background(), fsys, []Want{{Name: "a", Type: domain.TypeInteger}}, false, meter)
			err := l.ReadPart(p)
			if limit < 16<<20 {
				require.ErrorIs(t, err, errFull, "%s: a 16 MiB record within 8 MiB", part.path)
				continue
			}
			require.NoError(t, err, part.path)
			assert.Equal(t, 2, l.Rows, part.path)
			assert.GreaterOrEqual(t, most, int64(16<<20), "%s: the buffer that held the record was metered", part.path)
		}
	}
}
