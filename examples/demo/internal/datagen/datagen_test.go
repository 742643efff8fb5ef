package datagen

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCivilDatesAgreeWithTime(t *testing.T) {
	epoch := time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	for day := int64(-800_000); day <= 800_000; day += 7 {
		want := epoch.AddDate(0, 0, int(day))
		y, m, d := civilFromDays(day)
		require.Equal(t, [3]int64{int64(want.Year()), int64(want.Month()), int64(want.Day())}, [3]int64{y, m, d}, "day %d", day)
		require.Equal(t, day, daysFromCivil(y, m, d))
		if y >= 1000 && y <= 9999 {
			require.Equal(t, want.Format(time.DateOnly), string(appendDate(nil, day)))
		}
	}
}

func TestSignedUpByIsTheInverseOfSignupDay(t *testing.T) {
	for _, n := range []int64{100, 1500, 1_250_000} {
		for day := signupFirstDay - 2; day <= ordersLastDay+2; day++ {
			k := signedUpBy(day, n)
			if k > 0 {
				require.LessOrEqual(t, signupDay(k, n), day)
			}
			if k < n {
				require.Greater(t, signupDay(k+1, n), day)
			}
		}
	}
}

func TestDayWeightsShareRowsExactly(t *testing.T) {
	var total uint64
	for d := ordersFirstDay; d <= ordersLastDay; d++ {
		total += dayWeight(d)
	}
	assert.Zero(t, dayWeight(daysFromCivil(2025, 12, 25)), "closed on Christmas Day")
	assert.Equal(t, uint64(12345), mulDiv(12345, total, total))
}

func TestOutageDaysHaveNoPaidOrders(t *testing.T) {
	tbl := ordersTable(20_000, customerCount(20_000))
	orders := map[int64]int{}
	paid := map[int64]int{}
	require.NoError(t, tbl.rows(func(row []cell) error {
		day := row[oOrderDate].i
		orders[day]++
		if row[oIsPaid].b {
			paid[day]++
		}
		if row[oIsReturned].b {
			require.True(t, row[oIsPaid].b)
			require.Zero(t, row[oCollected].i)
		}
		require.Equal(t, row[oGross].i-row[oDiscount].i, row[oNet].i)
		require.Equal(t, row[oShippedDate].null, row[oDispatchDays].null)
		return nil
	}))
	for day := range outageDays {
		assert.NotZero(t, orders[day])
		assert.Zero(t, paid[day])
	}
}
