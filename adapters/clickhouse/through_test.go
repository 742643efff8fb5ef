package clickhouse_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/adapters/clickhouse/chtest"
	"sutura.dev/domain"
)

// TestDataThrough: the newest day of a model's time column, a date or a
// timestamp, is its max; a model the source does not serve and an empty
// table (whose max ClickHouse gives as 1970-01-01) tell nothing
// (docs/contract.md §16).
func TestDataThrough(t *testing.T) {
	d := chtest.New(t)
	d.Exec(t, "CREATE TABLE "+d.Name+".through (day Date, at DateTime) ENGINE = Memory")
	// INSERT … SELECT: the server makes the rows (an INSERT … VALUES over
	// the native protocol waits for the client to send blocks).
	d.Exec(t, "INSERT INTO "+d.Name+".through SELECT toDate('2026-06-30'), toDateTime('2026-07-01 23:59:59') "+
		"UNION ALL SELECT toDate('2026-01-02'), toDateTime('2026-01-02 00:00:00')")
	d.Exec(t, "CREATE TABLE "+d.Name+".nothing (day Date) ENGINE = Memory")
	models := []domain.Model{
		{Name: "through", Source: source, Table: "through", Columns: []domain.ModelColumn{
			{Name: "day", Type: domain.TypeDate}, {Name: "at", Type: domain.TypeTimestamp}}},
		{Name: "nothing", Source: source, Table: "nothing", Columns: []domain.ModelColumn{{Name: "day", Type: domain.TypeDate}}},
	}
	db := open(t, d.Config(source, models))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	for _, tc := range []struct{ column, want string }{{"day", "2026-06-30"}, {"at", "2026-07-01"}} {
		got, ok, err := db.DataThrough(ctx, "through", tc.column)
		require.NoError(t, err)
		require.True(t, ok, tc.column)
		assert.Equal(t, tc.want, got.String(), tc.column)
	}
	for _, model := range []string{"nothing", "not_a_model"} {
		_, ok, err := db.DataThrough(ctx, model, "day")
		require.NoError(t, err)
		assert.False(t, ok, model)
	}
}
