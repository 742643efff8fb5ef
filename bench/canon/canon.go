// Package canon renders database cells as sutura's canonical cell text
// (docs/contract.md §4.2), so answers from different engines compare exactly.
package canon

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"time"
)

// Render turns one cell, as database/sql scans it into an `any`, into its
// canonical text; nil stands for null. Integers are plain decimals, reals
// the shortest round-trip decimal without exponent (and -0 as 0), dates
// YYYY-MM-DD, text verbatim. A time of day, a non-finite real or an
// unexpected type is an error.
func Render(v any) (*string, error) {
	var s string
	switch x := v.(type) {
	case nil:
		return nil, nil
	case int64:
		s = strconv.FormatInt(x, 10)
	case int32:
		s = strconv.FormatInt(int64(x), 10)
	case uint64:
		s = strconv.FormatUint(x, 10)
	case *big.Int:
		s = x.String()
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("non-finite real %v", x)
		}
		if x == 0 {
			x = 0 // -0 renders as 0
		}
		s = strconv.FormatFloat(x, 'f', -1, 64)
	case time.Time:
		if x.Hour() != 0 || x.Minute() != 0 || x.Second() != 0 || x.Nanosecond() != 0 {
			return nil, fmt.Errorf("date cell carries a time of day: %v", x)
		}
		s = x.Format("2006-01-02")
	case string:
		s = x
	default:
		return nil, fmt.Errorf("unexpected cell type %T", v)
	}
	return &s, nil
}
