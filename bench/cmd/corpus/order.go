package main

import (
	"fmt"
	"math/big"
	"strings"
	"time"
)

// compareCells orders two raw cells of one column ascending with nulls
// last; text compares by bytes. It returns -1, 0 or +1.
func compareCells(a, b any) (int, error) {
	switch {
	case a == nil && b == nil:
		return 0, nil
	case a == nil:
		return 1, nil
	case b == nil:
		return -1, nil
	}
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		if !ok {
			break
		}
		return strings.Compare(x, y), nil
	case time.Time:
		y, ok := b.(time.Time)
		if !ok {
			break
		}
		return x.Compare(y), nil
	case float64:
		y, ok := b.(float64)
		if !ok {
			break
		}
		switch {
		case x < y:
			return -1, nil
		case x > y:
			return 1, nil
		}
		return 0, nil
	default:
		xa, okA := asBig(a)
		ya, okB := asBig(b)
		if okA && okB {
			return xa.Cmp(ya), nil
		}
	}
	return 0, fmt.Errorf("cannot compare %T with %T", a, b)
}

func asBig(v any) (*big.Int, bool) {
	switch x := v.(type) {
	case int64:
		return big.NewInt(x), true
	case int32:
		return big.NewInt(int64(x)), true
	case uint64:
		return new(big.Int).SetUint64(x), true
	case *big.Int:
		return x, true
	}
	return nil, false
}

// checkOrder verifies, independently of the SQL's ORDER BY, that rows
// follow the answer order: when topCol >= 0, that column first in the
// given direction (nulls last either way); then every key column
// (0..keys-1) ascending, nulls last.
func checkOrder(rows [][]any, keys, topCol int, desc bool) error {
	for i := 1; i < len(rows); i++ {
		c, err := orderCmp(rows[i-1], rows[i], keys, topCol, desc)
		if err != nil {
			return err
		}
		if c > 0 {
			return fmt.Errorf("rows %d and %d are out of answer order: %v then %v", i-1, i, rows[i-1], rows[i])
		}
		if c == 0 {
			return fmt.Errorf("rows %d and %d share every key: %v", i-1, i, rows[i])
		}
	}
	return nil
}

func orderCmp(a, b []any, keys, topCol int, desc bool) (int, error) {
	if topCol >= 0 {
		c, err := compareCells(a[topCol], b[topCol])
		if err != nil {
			return 0, err
		}
		if desc && a[topCol] != nil && b[topCol] != nil {
			c = -c
		}
		if c != 0 {
			return c, nil
		}
	}
	for k := range keys {
		c, err := compareCells(a[k], b[k])
		if err != nil {
			return 0, err
		}
		if c != 0 {
			return c, nil
		}
	}
	return 0, nil
}
