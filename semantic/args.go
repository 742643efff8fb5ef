package semantic

import (
	"fmt"
	"strconv"
	"strings"

	"sutura.dev/domain"
)

// PositionalArgs returns the values of st's parameters in placeholder
// order, for the drivers that bind by position ($1, $2 ... on postgres and
// duckdb; :1, :2 ... on oracle): dates as time.Time at midnight UTC, text
// as string. It fails when a parameter's placeholder is not the next
// number, or a value does not parse as its kind.
func (st Statement) PositionalArgs() ([]any, error) {
	args := make([]any, len(st.Params))
	for i, p := range st.Params {
		if n := strings.TrimLeft(p.Name, "$:"); n != strconv.Itoa(i+1) || len(n) == len(p.Name) {
			return nil, fmt.Errorf("parameter %d is written %s, not as the %d-th positional placeholder", i+1, p.Name, i+1)
		}
		switch p.Kind {
		case ParamDate:
			d, err := domain.ParseDate(p.Value)
			if err != nil {
				return nil, fmt.Errorf("parameter %s: the date %w", p.Name, err)
			}
			args[i] = d.Time()
		case ParamText:
			args[i] = p.Value
		default:
			return nil, fmt.Errorf("parameter %s has an unknown kind", p.Name)
		}
	}
	return args, nil
}
