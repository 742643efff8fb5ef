package column

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
)

// TestZoneOfSkipsNulls: the zone of days with nulls, of any span of
// rows, is the least and greatest of its non-null days (and empty, Min
// over Max, when every one is null), for days held in four bytes and in
// two from a base, and for times; columns all valid, mostly valid, half,
// mostly null and all null.
func TestZoneOfSkipsNulls(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const n = 1000
	for _, nulls := range []int{0, 1, 10, 50, 97, 100} {
		days := make([]arrow.Date32, n)
		valid := make([]byte, (n+7)/8)
		for i := range days {
			days[i] = arrow.Date32(20_000 + rng.Int32N(900))
			if rng.IntN(100) >= nulls {
				bitutil.SetBit(valid, i)
			}
		}
		days16 := make([]uint16, n)
		for i, d := range days {
			days16[i] = uint16(int32(d) - 19_000)
		}
		wide := &Column{Type: domain.TypeDate, N: n, Days: days, Valid: valid}
		narrow := &Column{Type: domain.TypeDate, N: n, Days16: days16, DayBase: 19_000, Valid: valid}
		micros := make([]int64, n)
		for i, d := range days {
			micros[i] = int64(d)*86_400_000_000 + rng.Int64N(86_400_000_000)
		}
		times := &Column{Type: domain.TypeTimestamp, N: n, Ints: micros, Valid: valid}
		for range 200 {
			lo := rng.IntN(n)
			hi := lo + rng.IntN(n-lo+1)
			want := DayZone{Min: 1<<31 - 1, Max: -1 << 31}
			for i := lo; i < hi; i++ {
				if bitutil.BitIsSet(valid, i) {
					want.Min, want.Max = min(want.Min, int32(days[i])), max(want.Max, int32(days[i]))
				}
			}
			require.Equal(t, want, ZoneOf(wide, lo, hi), "%d%% null, rows %d to %d", nulls, lo, hi)
			require.Equal(t, want, ZoneOf(narrow, lo, hi), "%d%% null, rows %d to %d, two bytes a day", nulls, lo, hi)
			require.Equal(t, want, ZoneOf(times, lo, hi), "%d%% null, rows %d to %d, times", nulls, lo, hi)
		}
	}
}
