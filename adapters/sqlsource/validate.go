package sqlsource

import (
	"fmt"

	"sutura.dev/domain"
)

// TableColumns are the columns of a table as the data system describes
// them, by column name: C is what the adapter knows of one (its type's
// name, a category, a grant).
type TableColumns[C any] map[string]C

// CheckModel is start-up validation of one model: every declared column
// must be in cols (looked up by key(name)) and fit its declared type.
// fits reports whether a column can stand for a declared type; typeName
// is the data system's name of the column's type, for the refusal;
// other, when not nil, refuses a column for another reason (the text
// completing "model <m>: ", "" when none).
func CheckModel[C any](m *domain.Model, cols TableColumns[C], key func(string) string,
	fits func(domain.ColumnType, C) bool, typeName func(C) string, other func(domain.ModelColumn, C) string) error {
	for _, want := range m.Columns {
		got, ok := cols[key(want.Name)]
		if !ok {
			return fmt.Errorf("model %s: table %s has no column %s", m.Name, m.Table, want.Name)
		}
		if other != nil {
			if problem := other(want, got); problem != "" {
				return fmt.Errorf("model %s: %s", m.Name, problem)
			}
		}
		if !fits(want.Type, got) {
			return fmt.Errorf("model %s: column %s is declared %s but is %s in the database", m.Name, want.Name, want.Type, typeName(got))
		}
	}
	return nil
}
