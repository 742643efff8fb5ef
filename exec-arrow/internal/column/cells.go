package column

import "sutura.dev/domain"

// FromCells builds column i of rows, typed from its non-null cells:
// integers are integer; integers and reals (as a numeric data system
// returns a decimal) are float; dates date; booleans boolean; text is
// text, or a timestamp when the hint says so and every value parses as
// one (a timestamp arrives as its RFC 3339 text); any other mix is text
// of the cells' canonical rendering. A column of nulls only takes the
// hint's type (text when there is none).
func FromCells(name string, rows [][]domain.Cell, i int, hint domain.ColumnType) (*Column, error) {
	var kinds uint
	for _, row := range rows {
		kinds |= 1 << row[i].Kind()
	}
	kinds &^= 1 << domain.KindNull
	typ := domain.TypeText
	switch kinds {
	case 0:
		if hint != domain.TypeUnset {
			typ = hint
		}
	case 1 << domain.KindInt:
		typ = domain.TypeInteger
	case 1 << domain.KindFloat, 1<<domain.KindInt | 1<<domain.KindFloat,
		1<<domain.KindFloat | 1<<domain.KindDecimal, 1<<domain.KindInt | 1<<domain.KindFloat | 1<<domain.KindDecimal:
		typ = domain.TypeFloat
	case 1 << domain.KindDecimal, 1<<domain.KindInt | 1<<domain.KindDecimal:
		// Exact partials stay exact: a decimal leg's sums are summed as
		// decimals (docs/reference.md).
		typ = domain.TypeDecimal
	case 1 << domain.KindDate:
		typ = domain.TypeDate
	case 1 << domain.KindBool:
		typ = domain.TypeBoolean
	case 1 << domain.KindText:
		if hint == domain.TypeTimestamp {
			if col, err := cellsAs(name, rows, i, domain.TypeTimestamp); err == nil {
				return col, nil
			}
		}
	}
	return cellsAs(name, rows, i, typ)
}

// cellsAs builds column i of rows as typ: typed values go to the
// builder as they are, text (and a mix of kinds, as text) as its
// canonical rendering.
func cellsAs(name string, rows [][]domain.Cell, i int, typ domain.ColumnType) (*Column, error) {
	b := NewBuilder(typ, false)
	for _, row := range rows {
		c := row[i]
		var err error
		switch {
		case c.IsNull():
			b.AppendNull()
		case typ == domain.TypeInteger:
			err = b.AppendInt(c.IntValue())
		case typ == domain.TypeFloat:
			err = b.AppendFloat(c.FloatValue())
		case typ == domain.TypeDate:
			err = b.AppendDate(int32(c.DateValue()))
		case typ == domain.TypeBoolean:
			err = b.AppendBool(c.BoolValue())
		default:
			err = b.AppendText(c.Render())
		}
		if err != nil {
			return nil, err
		}
	}
	return b.Finish(name), nil
}
