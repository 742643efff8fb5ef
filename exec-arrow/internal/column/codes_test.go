package column

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"sutura.dev/domain"
)

// owner records what a Derived accounts.
type owner struct{ held int64 }

func (o *owner) ReserveDerived(n int64) error    { o.held += n; return nil }
func (o *owner) AccountDerived(n int64)          { o.held += n }
func (o *owner) Retired() bool                   { return false }
func (o *owner) Hold() (release func(), ok bool) { return func() {}, true }

// GroupCodes numbers a column's values without building their cells or
// their order, which a count_distinct never reads (sorting tens of
// millions of distinct texts took over a minute); Values and Order build
// them when first asked, once, accounted then, and agree with the codes.
// A text column with no null lends its dictionary indexes as the codes
// and holds nothing more.
func TestCodeSetValuesAndOrderOnDemand(t *testing.T) {
	texts := []string{"pear", "", "apple", "fig", "apple", "pear", "kiwi"}
	ints := []string{"3000000", "", "-4", "7", "-4", "3000000", "12"} // spread wide: coded through a map
	// Three hundred values: indexes and codes of four bytes.
	var many, manySorted []string
	for i := range 300 {
		many = append(many, fmt.Sprintf("v%03d", (i*7)%300))
		manySorted = append(manySorted, fmt.Sprintf("v%03d", i))
	}
	manyNull := append([]string{""}, many...)
	for _, c := range []struct {
		typ    domain.ColumnType
		vals   []string
		sorted []string
		kept   int  // bytes a value kept until its cell is built
		lent   bool // the codes are the column's dictionary indexes
		width  int  // bytes a code
	}{
		{domain.TypeText, texts, []string{"apple", "fig", "kiwi", "pear"}, 0, false, 1}, // the column's own
		{domain.TypeText, []string{"pear", "fig", "apple", "fig"}, []string{"apple", "fig", "pear"}, 0, true, 1},
		{domain.TypeText, manyNull, manySorted, 0, false, 4},
		{domain.TypeText, many, manySorted, 0, true, 4},
		{domain.TypeBoolean, []string{"true", "", "false", "true"}, []string{"false", "true"}, 0, false, 1},
		{domain.TypeInteger, ints, []string{"-4", "7", "12", "3000000"}, 8, false, 4},
		{domain.TypeDecimal, []string{"1.50", "", "-2.25", "1.5", "0.75", "", "9"}, []string{"-2.25", "0.75", "1.5", "9"}, 16, false, 4},
	} {
		b := NewBuilder(c.typ, false)
		for _, v := range c.vals {
			if v == "" {
				b.AppendNull()
			} else if err := b.AppendText(v); err != nil {
				t.Fatal(err)
			}
		}
		col := b.Finish("c")
		o := &owner{}
		d := NewDerived(col, o)
		s, err := d.GroupCodes(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		codesOnly := o.held
		if s.Card() != len(c.sorted) || s.vals != nil || s.ord != nil || d.rank != nil {
			t.Fatalf("%s: %d values, cells built %v, order built %v, ranks built %v; want %d and none built",
				c.typ, s.Card(), s.vals != nil, s.ord != nil, d.rank != nil, len(c.sorted))
		}
		want := int64(c.width*col.N + c.kept*len(c.sorted))
		if got := 4*len(s.Codes) + len(s.Codes8); got != c.width*col.N {
			t.Errorf("%s: codes of %d bytes, want %d a row", c.typ, got, c.width)
		}
		if c.lent {
			// A text column with no null lends its indexes: nothing more held.
			want = 0
			if c.width == 1 && &s.Codes8[0] != &col.Idx8[0] || c.width == 4 && &s.Codes[0] != &col.Idx[0] || s.Plus != 1 {
				t.Errorf("%s: the codes are not the column's indexes", c.typ)
			}
		}
		if codesOnly != want {
			t.Fatalf("%s: %d bytes accounted for the codes, want %d", c.typ, codesOnly, want)
		}
		values, order := s.Values(), s.Order()
		if o.held <= codesOnly {
			t.Errorf("%s: the cells built are not accounted", c.typ)
		}
		got := make([]string, len(c.sorted))
		for k, v := range values {
			got[order[k]] = v.Render()
		}
		if !slices.Equal(got, c.sorted) {
			t.Errorf("%s: values in their order %v, want %v", c.typ, got, c.sorted)
		}
		for r := range col.N {
			code := s.Code(int32(r))
			if (code == 0) != (c.vals[r] == "") || code != 0 && values[code-1].Render() != got[order[code-1]] {
				t.Errorf("%s: row %d has code %d", c.typ, r, code)
			}
		}
		if &s.Values()[0] != &values[0] || &s.Order()[0] != &order[0] {
			t.Errorf("%s: built again", c.typ)
		}
	}
}

// TestIntegerCodesLentBySpan: a 32-bit integer column with no null whose
// values span little more than its rows lends them as its codes (nothing
// built, nothing accounted), each code its value less the least plus
// one, and its values and order agree with them; one with a null builds
// codes of its own by the same offsets (four bytes a row, 0 for the
// null), and one spread wide numbers its values.
func TestIntegerCodesLentBySpan(t *testing.T) {
	build := func(vals ...string) *Column {
		b := NewBuilder(domain.TypeInteger, false)
		for _, v := range vals {
			if v == "" {
				b.AppendNull()
			} else if err := b.AppendText(v); err != nil {
				t.Fatal(err)
			}
		}
		return b.Finish("i")
	}
	col := build("30", "-4", "7", "-4", "30", "12")
	o := &owner{}
	s, err := NewDerived(col, o).GroupCodes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if &s.Codes[0] != &col.Ints32[0] || s.Plus != 5 || s.Card() != 35 || o.held != 0 {
		t.Fatalf("lent %v, plus %d, card %d, held %d; want the values, 5, 35, 0", &s.Codes[0] == &col.Ints32[0], s.Plus, s.Card(), o.held)
	}
	values, order := s.Values(), s.Order()
	for r := range col.N {
		code := s.Code(int32(r))
		if got := values[code-1].Render(); got != col.Cell(int32(r)).Render() {
			t.Errorf("row %d: code %d is %s", r, code, got)
		}
	}
	for k := 1; k < len(order); k++ {
		if order[k] <= order[k-1] {
			t.Fatalf("order %v is not the values' order", order[:k+1])
		}
	}
	nulls := build("30", "", "7", "30", "8")
	o = &owner{}
	s, err = NewDerived(nulls, o).GroupCodes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Codes, []int32{24, 0, 1, 24, 2}) || s.Plus != 0 || s.Card() != 24 || o.held != 4*5 {
		t.Fatalf("codes %v, plus %d, card %d, held %d; want [24 0 1 24 2], 0, 24, 20", s.Codes, s.Plus, s.Card(), o.held)
	}
	if v := s.Values(); v[23].Render() != "30" || v[1].Render() != "8" {
		t.Errorf("values %v", v)
	}
	for _, c := range []struct {
		vals     []string
		distinct int
	}{{[]string{"30", "", "7000000", "30"}, 2}, {[]string{"1", "1000000000", "7"}, 3}} {
		vals := c.vals
		col := build(vals...)
		s, err := NewDerived(col, &owner{}).GroupCodes(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Codes) > 0 && &s.Codes[0] == &col.Ints32[0] {
			t.Errorf("%v: lent", vals)
		}
		if s.Card() != c.distinct {
			t.Errorf("%v: %d values, want %d", vals, s.Card(), c.distinct)
		}
	}
}

// limited is an owner with a working set: a reservation past limit fails.
type limited struct {
	held, peak, limit int64
}

var errNoRoom = fmt.Errorf("no room")

func (o *limited) ReserveDerived(n int64) error {
	if o.held+n > o.limit {
		return errNoRoom
	}
	o.AccountDerived(n)
	return nil
}
func (o *limited) AccountDerived(n int64)          { o.held += n; o.peak = max(o.peak, o.held) }
func (o *limited) Retired() bool                   { return false }
func (o *limited) Hold() (release func(), ok bool) { return func() {}, true }

// TestCodesMapReserved: the map a column of values spread wide is coded
// through is reserved while it is built — a working set too small for it
// fails the build with the owner's refusal, where it used to be built
// unaccounted — and given back after it, leaving the codes and the values
// kept; for integers with nulls, floats and decimals alike.
func TestCodesMapReserved(t *testing.T) {
	const rows, distinct = 60000, 20000
	for _, typ := range []domain.ColumnType{domain.TypeInteger, domain.TypeFloat, domain.TypeDecimal, domain.TypeDate} {
		b := NewBuilder(typ, false)
		for r := range rows {
			v := (r % distinct) * 100003 // spread wider than four times the rows
			var err error
			switch {
			case r%7 == 3:
				b.AppendNull()
			case typ == domain.TypeFloat:
				err = b.AppendText(fmt.Sprintf("%d.5", v))
			case typ == domain.TypeDecimal:
				err = b.AppendText(fmt.Sprintf("%d.25", v))
			case typ == domain.TypeDate:
				err = b.AppendText(time.Date(1, 1, 1+v%3000000, 0, 0, 0, 0, time.UTC).Format(time.DateOnly))
			default:
				err = b.AppendText(fmt.Sprint(v))
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		col := b.Finish("c")
		roomy := &limited{limit: 1 << 40}
		s, err := NewDerived(col, roomy).GroupCodes(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		keySize := int64(8)
		if typ == domain.TypeDecimal {
			keySize = 16
		}
		kept := 4*int64(rows) + keySize*int64(s.Card())
		if roomy.held != kept {
			t.Errorf("%s: %d bytes held after the build, want the codes and values, %d", typ, roomy.held, kept)
		}
		if transient := roomy.peak - 4*int64(rows); transient < int64(s.Card())*(keySize+12) {
			t.Errorf("%s: %d bytes reserved while building %d values' map: under what it takes", typ, transient, s.Card())
		}
		// Room for the codes and the values kept, not for the map beside them.
		tight := &limited{limit: kept}
		if _, err := NewDerived(col, tight).GroupCodes(context.Background()); err != errNoRoom {
			t.Errorf("%s: built in a working set of %d bytes (err %v), want the refusal", typ, kept, err)
		}
		if tight.held != 0 {
			t.Errorf("%s: %d bytes left held after a refused build", typ, tight.held)
		}
	}
}
