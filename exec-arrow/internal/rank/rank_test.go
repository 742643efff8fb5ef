package rank

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/i128"
	"sutura.dev/exec-arrow/internal/value"
)

func TestFirstNIsTheSortedPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 30))
	for _, tc := range []struct{ ng, n int }{{0, 3}, {5, 10}, {1000, 10}, {100_000, 1}, {100_000, 250}} {
		vals := make([]int, tc.ng)
		for i := range vals {
			vals[i] = rng.IntN(500) // ties, broken by group
		}
		byValue := func(a, b int) int {
			if c := cmp.Compare(vals[b], vals[a]); c != 0 {
				return c // descending, as a top-n by a metric
			}
			return cmp.Compare(a, b)
		}
		all := make([]int, tc.ng)
		for i := range all {
			all[i] = i
		}
		slices.SortFunc(all, byValue)
		got, err := FirstN(context.Background(), tc.ng, tc.n, byValue)
		if err != nil {
			t.Fatal(err)
		}
		if want := all[:min(tc.n, tc.ng)]; !slices.Equal(got, want) {
			t.Errorf("FirstN(%d of %d) = %v…, want %v…", tc.n, tc.ng, got[:min(5, len(got))], want[:min(5, len(want))])
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := FirstN(ctx, 1_000_000, 10, func(a, b int) int { return cmp.Compare(a, b) }); err == nil {
		t.Error("a cancelled ranking stops with the context's error")
	}
}

func TestCompareValuesNullsLastEitherWay(t *testing.T) {
	null := value.Value{Null: true}
	one, two := value.Value{Kind: domain.KindInt, I: 1}, value.Value{Kind: domain.KindInt, I: 2}
	half := value.Value{Kind: domain.KindFloat, F: 1.5}
	for _, desc := range []bool{false, true} {
		if CompareValues(null, one, desc) <= 0 || CompareValues(one, null, desc) >= 0 || CompareValues(null, null, desc) != 0 {
			t.Errorf("desc=%v: nulls do not come last", desc)
		}
	}
	if CompareValues(one, two, false) >= 0 || CompareValues(one, two, true) <= 0 {
		t.Error("desc reverses the order of values")
	}
	if CompareValues(half, one, false) <= 0 || CompareValues(half, two, false) >= 0 {
		t.Error("a float and an integer compare as numbers")
	}
	d150 := value.Value{Kind: domain.KindDecimal, D: i128.Of(150), Sc: 2}
	d16 := value.Value{Kind: domain.KindDecimal, D: i128.Of(16), Sc: 1}
	if CompareValues(d150, d16, false) >= 0 || CompareValues(d150, value.Value{Kind: domain.KindDecimal, D: i128.Of(15), Sc: 1}, false) != 0 {
		t.Error("decimals of different scales compare exactly")
	}
	a, b := value.Value{Kind: domain.KindText, S: "b"}, value.Value{Kind: domain.KindText, S: "a"}
	if CompareValues(a, b, false) <= 0 {
		t.Error("texts compare as strings")
	}
	a.ByInt, b.ByInt, a.I, b.I = true, true, 1, 2
	if CompareValues(a, b, false) >= 0 {
		t.Error("a text ordered by its integer compares by it")
	}
}
