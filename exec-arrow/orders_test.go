package engine

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
)

// The generated shop: orders in date order over 2024 and 2025, customers
// (one per eight orders) in four regions. Text order ids are all distinct
// (the high-cardinality column a count only needs the validity of); a few
// values of most columns are null, and a few order ids empty (null too).
var (
	orderCols = []domain.ModelColumn{
		col("order_id", domain.TypeText), col("order_date", domain.TypeDate), col("customer_id", domain.TypeInteger),
		col("channel", domain.TypeText), col("status", domain.TypeText), col("is_paid", domain.TypeBoolean),
		col("is_returned", domain.TypeBoolean), col("net_amount", domain.TypeInteger), col("price", domain.TypeFloat),
	}
	customerCols = []domain.ModelColumn{col("customer_id", domain.TypeInteger), col("region_id", domain.TypeInteger)}
	regionCols   = []domain.ModelColumn{col("region_id", domain.TypeInteger), col("region_name", domain.TypeText)}
)

// shopOptions say how the shop's files are written.
type shopOptions struct {
	rows     int
	rowGroup int  // Parquet rows per row group
	noStats  bool // Parquet without column statistics
	// required writes the Parquet columns that hold no null as required
	// columns, in small pages (several pages per column chunk), with
	// small dictionaries (integer keys go on in PLAIN pages).
	required bool
	csv      bool // CSV instead of Parquet
}

// writeShop writes orders, customers and regions into dir.
func writeShop(t testing.TB, dir string, o shopOptions) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 11))
	start := day(t, "2024-01-01")
	customers := max(o.rows/8, 10)
	channels := []string{"online", "store"}
	statuses := []string{"completed", "completed", "pending", "cancelled"}
	orders := newTable(orderCols)
	for i := 0; i < o.rows; i++ {
		id := fmt.Sprintf("o-%08d-%x", i, rng.Uint32())
		switch {
		case i%211 == 5:
			id = "" // empty text is null
		case i%199 == 3:
			id = "\x00null"
		}
		orders.add(
			id,
			(start + domain.Date(i*730/o.rows)).String(),
			nullIf(i%97 == 1, strconv.Itoa(1+rng.IntN(customers))),
			channels[rng.IntN(2)],
			statuses[rng.IntN(4)],
			nullIf(i%89 == 2, strconv.FormatBool(rng.IntN(5) != 0)),
			strconv.FormatBool(rng.IntN(9) == 0),
			strconv.Itoa(rng.IntN(20000)),
			domain.Float(float64(rng.IntN(800))/8).Render(),
		)
	}
	cust := newTable(customerCols)
	for i := 1; i <= customers; i++ {
		cust.add(strconv.Itoa(i), nullIf(i%53 == 0, strconv.Itoa(1+rng.IntN(4))))
	}
	regions := newTable(regionCols)
	for i, name := range []string{"North", "East", "South", "West"} {
		regions.add(strconv.Itoa(i+1), name)
	}
	for name, tb := range map[string]*table{"orders": orders, "customers": cust, "regions": regions} {
		if o.csv {
			write(t, dir, name+".csv", tb.csv())
			continue
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, name+".parquet"), tb.parquet(t, o), 0o644))
	}
}

func nullIf(null bool, s string) string {
	if null {
		return "\x00null"
	}
	return s
}

// table is generated rows as text ("\x00null" is null).
type table struct {
	cols []domain.ModelColumn
	rows [][]string
}

func newTable(cols []domain.ModelColumn) *table { return &table{cols: cols} }

func (tb *table) add(vals ...string) { tb.rows = append(tb.rows, vals) }

func (tb *table) csv() string {
	var b strings.Builder
	for i, c := range tb.cols {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(c.Name)
	}
	b.WriteByte('\n')
	for _, r := range tb.rows {
		for i, v := range r {
			if i > 0 {
				b.WriteByte(',')
			}
			if v != "\x00null" {
				b.WriteString(v)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func (tb *table) parquet(t testing.TB, o shopOptions) []byte {
	fields := make([]arrow.Field, len(tb.cols))
	for i, c := range tb.cols {
		dt := map[domain.ColumnType]arrow.DataType{domain.TypeText: arrow.BinaryTypes.String, domain.TypeDate: arrow.FixedWidthTypes.Date32,
			domain.TypeInteger: arrow.PrimitiveTypes.Int64, domain.TypeBoolean: arrow.FixedWidthTypes.Boolean, domain.TypeFloat: arrow.PrimitiveTypes.Float64}[c.Type]
		nullable := !o.required
		for _, r := range tb.rows {
			nullable = nullable || r[i] == "\x00null"
		}
		fields[i] = arrow.Field{Name: c.Name, Type: dt, Nullable: nullable}
	}
	schema := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for _, r := range tb.rows {
		for i, v := range r {
			fb := b.Field(i)
			if v == "\x00null" {
				fb.AppendNull()
				continue
			}
			switch tb.cols[i].Type {
			case domain.TypeText:
				fb.(*array.StringBuilder).Append(v)
			case domain.TypeDate:
				d, err := domain.ParseDate(v)
				require.NoError(t, err)
				fb.(*array.Date32Builder).Append(arrow.Date32(d))
			case domain.TypeInteger:
				n, err := strconv.ParseInt(v, 10, 64)
				require.NoError(t, err)
				fb.(*array.Int64Builder).Append(n)
			case domain.TypeBoolean:
				fb.(*array.BooleanBuilder).Append(v == "true")
			case domain.TypeFloat:
				f, err := strconv.ParseFloat(v, 64)
				require.NoError(t, err)
				fb.(*array.Float64Builder).Append(f)
			}
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	opts := []parquet.WriterProperty{parquet.WithMaxRowGroupLength(int64(max(o.rowGroup, 1))), parquet.WithCompression(compress.Codecs.Snappy)}
	if o.noStats {
		opts = append(opts, parquet.WithStats(false))
	}
	if o.required {
		// Small pages, and dictionaries small enough that the keys with
		// many values fall back to PLAIN pages within a chunk.
		opts = append(opts, parquet.WithDataPageSize(1024), parquet.WithDictionaryPageSizeLimit(4096), parquet.WithBatchSize(512))
	}
	w, err := pqarrow.NewFileWriter(schema, &buf, parquet.NewWriterProperties(opts...), pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// shopLeg is a leg over orders, joined to customers and regions when a
// dimension or filter needs the region.
func shopLeg(region bool, metrics ...domain.MetricRef) domain.Leg {
	leg := domain.Leg{Base: tbl("orders", "t0", orderCols...), TimeColumn: "order_date", Metrics: metrics}
	if region {
		leg.Joins = []domain.Join{
			{Relationship: "order_customer", To: tbl("customers", "t1", customerCols...), FromAlias: "t0", FromColumn: "customer_id", ToColumn: "customer_id"},
			{Relationship: "customer_region", To: tbl("regions", "t2", regionCols...), FromAlias: "t1", FromColumn: "region_id", ToColumn: "region_id"},
		}
	}
	return leg
}

var (
	shopNotCancelled = domain.RequiredFilter{Op: domain.NotEquals, Column: "status", Value: "cancelled"}
	shopPaid         = domain.RequiredFilter{Op: domain.IsTrue, Column: "is_paid"}
	shopCompleted    = domain.RequiredFilter{Op: domain.Equals, Column: "status", Value: "completed"}
)

// sixQuestions are the questions of issue 10 over the shop: a sum by month
// over two years; a sum by region and channel (two joins) by quarter; a
// count_distinct of the customer by channel and year; a ratio of a
// count_if to a count of the text order id by channel and month; a count
// at day grain over one year; two metrics with different required
// filters.
func sixQuestions(t testing.TB) []*domain.Plan {
	byRegionChannel := shopLeg(true, metric("gross", sum("net_amount"), shopNotCancelled))
	byRegionChannel.Dimensions = []domain.DimensionRef{dim("region", "t2", "region_name"), dim("channel", "t0", "channel")}
	distinct := shopLeg(false, metric("customers", simple(domain.CountDistinct, "customer_id"), shopPaid))
	distinct.Dimensions = []domain.DimensionRef{dim("channel", "t0", "channel")}
	ratio := shopLeg(false, metric("return_rate", domain.Measure{Ratio: &domain.Ratio{
		Numerator:   domain.Term{CountIf: "is_returned"},
		Denominator: domain.Term{Aggregate: domain.Count, Column: "order_id"}, ZeroDenominator: domain.YieldsNull}}, shopCompleted))
	ratio.Dimensions = []domain.DimensionRef{dim("channel", "t0", "channel")}
	two := shopLeg(false, metric("net", sum("net_amount"), shopNotCancelled, shopPaid), metric("orders", count("order_id"), shopNotCancelled),
		metric("avg_price", simple(domain.Avg, "price"), shopPaid))
	two.Dimensions = []domain.DimensionRef{dim("channel", "t0", "channel")}
	return []*domain.Plan{
		mkPlan(t, domain.Month, "2024-01-01", "2026-01-01", shopLeg(false, metric("net", sum("net_amount"), shopNotCancelled, shopPaid))),
		mkPlan(t, domain.Quarter, "2025-01-01", "2026-01-01", byRegionChannel),
		mkPlan(t, domain.Year, "2025-01-01", "2026-01-01", distinct),
		mkPlan(t, domain.Month, "2025-01-01", "2026-01-01", ratio),
		mkPlan(t, domain.Day, "2025-01-01", "2026-01-01", shopLeg(false, metric("orders", count("order_id"), shopNotCancelled))),
		mkPlan(t, domain.Week, "2025-06-30", "2025-12-29", two),
	}
}
