package datagen

import (
	"math/bits"
	"math/rand/v2"
)

// The fixed seeds. Changing either changes every generated file.
const (
	seedOrders    uint64 = 0x5a7e_1a2c_0de5_0001
	seedCustomers uint64 = 0x5a7e_1a2c_0de5_0002
)

// The calendar of the data set (days since 1970-01-01, both inclusive).
var (
	ordersFirstDay = daysFromCivil(2024, 1, 1)
	ordersLastDay  = daysFromCivil(2026, 6, 30)
	signupFirstDay = daysFromCivil(2023, 1, 1)
)

// Days on which the card processor was down: orders were taken and goods
// handed over, but no payment was ever reconciled, so no order of the day
// is paid. They give day-grain ratios a zero paid-order denominator.
var outageDays = map[int64]bool{
	daysFromCivil(2024, 11, 29): true,
	daysFromCivil(2025, 8, 12):  true,
}

// region is one row of the regions table.
type region struct {
	id     int64
	name   string
	weight int // share of customers, in percent
}

var regions = []region{
	{1, "North", 20},
	{2, "East", 30},
	{3, "South", 25},
	{4, "West", 25},
}

// product is one row of the products table.
type product struct {
	name       string
	category   string
	priceCents int64
	popularity int
}

var products = []product{
	{"Galvanised Watering Can", "Garden", 2450, 6},
	{"Cedar Planter Box", "Garden", 5900, 3},
	{"Pruning Shears", "Garden", 1850, 5},
	{"Seed Starter Kit", "Garden", 1200, 7},
	{"Folding Garden Chair", "Garden", 4500, 3},
	{"Oak Chopping Board", "Kitchen", 3200, 6},
	{"Enamel Casserole Dish", "Kitchen", 8900, 3},
	{"Carbon Steel Wok", "Kitchen", 4200, 4},
	{"Glass Storage Jar Set", "Kitchen", 2600, 6},
	{"Stoneware Mixing Bowl", "Kitchen", 2200, 5},
	{"Brass Table Lamp", "Lighting", 7400, 3},
	{"Linen Pendant Shade", "Lighting", 3800, 3},
	{"Rechargeable Lantern", "Lighting", 2900, 5},
	{"Beeswax Candle Pair", "Lighting", 900, 9},
	{"Arc Floor Lamp", "Lighting", 12900, 1},
	{"Stoneware Dinner Plate", "Tableware", 1400, 8},
	{"Tumbler Glass Set", "Tableware", 2400, 6},
	{"Linen Napkin Set", "Tableware", 1800, 5},
	{"Ceramic Mug", "Tableware", 1100, 10},
	{"Serving Platter", "Tableware", 3400, 3},
	{"Wool Throw", "Textiles", 6900, 4},
	{"Linen Cushion Cover", "Textiles", 2800, 6},
	{"Cotton Bath Towel", "Textiles", 1900, 8},
	{"Waffle Tea Towel", "Textiles", 700, 9},
	{"Jute Doormat", "Textiles", 2300, 4},
}

// Customer segments.
const (
	segConsumer = "consumer"
	segBusiness = "small_business"
	segTrade    = "trade"
)

// buildTables returns the four tables for a data set of rows orders.
func buildTables(rows int64) []table {
	customers := customerCount(rows)
	return []table{regionsTable(), productsTable(), customersTable(customers), ordersTable(rows, customers)}
}

// customerCount scales the customer base with the order count: about one
// customer per eight orders, never fewer than 100.
func customerCount(rows int64) int64 {
	return max(100, rows/8)
}

func regionsTable() table {
	return table{
		name: "regions",
		columns: []column{
			{name: "region_id", kind: kindInt},
			{name: "region_name", kind: kindText},
		},
		rows: func(emit func([]cell) error) error {
			row := make([]cell, 2)
			for _, r := range regions {
				row[0] = cell{i: r.id}
				row[1] = cell{s: r.name}
				if err := emit(row); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

func productsTable() table {
	return table{
		name: "products",
		columns: []column{
			{name: "product_id", kind: kindInt},
			{name: "product_name", kind: kindText},
			{name: "category", kind: kindText},
			{name: "unit_price_cents", kind: kindInt},
		},
		rows: func(emit func([]cell) error) error {
			row := make([]cell, 4)
			for i, p := range products {
				row[0] = cell{i: int64(i + 1)}
				row[1] = cell{s: p.name}
				row[2] = cell{s: p.category}
				row[3] = cell{i: p.priceCents}
				if err := emit(row); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

// customerTraits derives a customer's region id (0 when the customer left no
// address) and segment from the customer id alone, so that orders can use a
// customer's segment without holding the customers table in memory.
func customerTraits(id int64) (regionID int64, segment string) {
	var p rand.PCG
	p.Seed(seedCustomers, uint64(id))
	x := p.Uint64()
	if x%1000 < 12 {
		regionID = 0
	} else {
		pick := int((x >> 10) % 100)
		for _, r := range regions {
			if pick < r.weight {
				regionID = r.id
				break
			}
			pick -= r.weight
		}
	}
	switch s := (x >> 20) % 100; {
	case s < 78:
		segment = segConsumer
	case s < 94:
		segment = segBusiness
	default:
		segment = segTrade
	}
	return regionID, segment
}

// signupDay is the day customer id (1..n) signed up: ids are spread evenly
// from signupFirstDay to ordersLastDay.
func signupDay(id, n int64) int64 {
	span := ordersLastDay - signupFirstDay + 1
	return signupFirstDay + (id-1)*span/n
}

// signedUpBy is the number of customers (1..n) who signed up on or before
// day: the largest id with signupDay(id, n) <= day.
func signedUpBy(day, n int64) int64 {
	span := ordersLastDay - signupFirstDay + 1
	t := day - signupFirstDay + 1
	if t <= 0 {
		return 0
	}
	return min(n, (t*n+span-1)/span)
}

func customersTable(n int64) table {
	return table{
		name: "customers",
		columns: []column{
			{name: "customer_id", kind: kindInt},
			{name: "region_id", kind: kindInt, nullable: true},
			{name: "segment", kind: kindText},
			{name: "signup_date", kind: kindDate},
		},
		rows: func(emit func([]cell) error) error {
			row := make([]cell, 4)
			for id := int64(1); id <= n; id++ {
				regionID, segment := customerTraits(id)
				row[0] = cell{i: id}
				row[1] = cell{i: regionID, null: regionID == 0}
				row[2] = cell{s: segment}
				row[3] = cell{i: signupDay(id, n)}
				if err := emit(row); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

// dayWeight is the relative order volume of a day: slow growth over the
// period, a weekly rhythm and a seasonal one. The shop is closed (no orders
// at all) on 25 December.
func dayWeight(day int64) uint64 {
	_, m, d := civilFromDays(day)
	if m == 12 && d == 25 {
		return 0
	}
	growth := 100 + 40*(day-ordersFirstDay)/(ordersLastDay-ordersFirstDay)
	weekdayFactor := [7]int64{85, 90, 85, 90, 100, 115, 135}[(day+4)%7] // Sun..Sat; 1970-01-01 was a Thursday
	monthFactor := [12]int64{80, 85, 95, 95, 100, 100, 95, 95, 100, 105, 130, 145}[m-1]
	return uint64(growth * weekdayFactor * monthFactor)
}

// mulDiv returns a*b/c without overflow (c > 0, result < 2^64).
func mulDiv(a, b, c uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	q, _ := bits.Div64(hi, lo, c)
	return q
}

var ordersColumns = []column{
	{name: "order_id", kind: kindInt},
	{name: "order_date", kind: kindDate},
	{name: "customer_id", kind: kindInt},
	{name: "product_id", kind: kindInt},
	{name: "channel", kind: kindText},
	{name: "status", kind: kindText},
	{name: "payment_method", kind: kindText, nullable: true},
	{name: "is_paid", kind: kindBool},
	{name: "quantity", kind: kindInt},
	{name: "gross_amount_cents", kind: kindInt},
	{name: "discount_cents", kind: kindInt},
	{name: "net_amount_cents", kind: kindInt},
	{name: "collected_cents", kind: kindInt},
	{name: "shipped_date", kind: kindDate, nullable: true},
	{name: "dispatch_days", kind: kindInt, nullable: true},
	{name: "is_returned", kind: kindBool},
}

// Column positions in ordersColumns.
const (
	oOrderID = iota
	oOrderDate
	oCustomerID
	oProductID
	oChannel
	oStatus
	oPaymentMethod
	oIsPaid
	oQuantity
	oGross
	oDiscount
	oNet
	oCollected
	oShippedDate
	oDispatchDays
	oIsReturned
	oColumns
)

// firstOrderID is the id of the first order; ids then run consecutively in
// order-date order.
const firstOrderID = 100001

func ordersTable(rows, customers int64) table {
	return table{
		name:    "orders",
		columns: ordersColumns,
		rows: func(emit func([]cell) error) error {
			// Share rows out over the days in proportion to dayWeight, exactly:
			// day d gets floor(rows*cum(d+1)/W) - floor(rows*cum(d)/W).
			var total uint64
			for d := ordersFirstDay; d <= ordersLastDay; d++ {
				total += dayWeight(d)
			}
			g := orderGen{
				r:         rand.New(rand.NewPCG(seedOrders, seedOrders^seedCustomers)),
				customers: customers,
				nextID:    firstOrderID,
				row:       make([]cell, oColumns),
			}
			g.initProducts()
			var cum, done uint64
			for d := ordersFirstDay; d <= ordersLastDay; d++ {
				cum += dayWeight(d)
				upto := mulDiv(uint64(rows), cum, total)
				for ; done < upto; done++ {
					g.order(d)
					if err := emit(g.row); err != nil {
						return err
					}
				}
			}
			return nil
		},
	}
}

// orderGen holds the state of the orders stream.
type orderGen struct {
	r          *rand.Rand
	customers  int64
	nextID     int64
	row        []cell
	productCum []int // cumulative popularity
}

func (g *orderGen) initProducts() {
	sum := 0
	for _, p := range products {
		sum += p.popularity
		g.productCum = append(g.productCum, sum)
	}
}

// perMille reports true with probability perMille/1000.
func (g *orderGen) perMille(perMille int) bool { return g.r.IntN(1000) < perMille }

// pickCustomer draws a customer among those signed up by day, favouring
// long-standing (low id) customers: loyal customers order more often.
func (g *orderGen) pickCustomer(day int64) int64 {
	m := uint64(max(1, signedUpBy(day, g.customers)))
	if g.r.IntN(10) < 3 {
		return int64(g.r.Uint64N(m)) + 1
	}
	a, b := g.r.Uint64N(m), g.r.Uint64N(m)
	return int64(mulDiv(a, b, m)) + 1
}

func (g *orderGen) pickProduct() int {
	x := g.r.IntN(g.productCum[len(g.productCum)-1])
	for i, c := range g.productCum {
		if x < c {
			return i
		}
	}
	return len(g.productCum) - 1
}

func (g *orderGen) quantity(segment string) int64 {
	if segment == segTrade {
		return 2 + int64(g.r.IntN(11)) // trade buyers stock up: 2..12
	}
	switch x := g.r.IntN(100); {
	case x < 60:
		return 1
	case x < 85:
		return 2
	case x < 95:
		return 3
	default:
		return 4 + int64(g.r.IntN(3))
	}
}

// discountPercent is the order's discount: most orders pay full price, and
// the Black Friday week (24 November to 1 December) is a sale.
func (g *orderGen) discountPercent(day int64) int64 {
	_, m, d := civilFromDays(day)
	if (m == 11 && d >= 24) || (m == 12 && d == 1) {
		return []int64{10, 15, 20, 25}[g.r.IntN(4)]
	}
	if g.r.IntN(100) < 65 {
		return 0
	}
	return []int64{5, 10, 15, 20}[g.r.IntN(4)]
}

// order fills g.row with the next order, placed on day.
func (g *orderGen) order(day int64) {
	row := g.row
	elapsed := day - ordersFirstDay
	span := ordersLastDay - ordersFirstDay
	online := g.perMille(550 + int(100*elapsed/span))
	customer := g.pickCustomer(day)
	_, segment := customerTraits(customer)
	prod := g.pickProduct()
	qty := g.quantity(segment)
	gross := products[prod].priceCents * qty
	discount := gross * g.discountPercent(day) / 100
	net := gross - discount

	row[oOrderID] = cell{i: g.nextID}
	g.nextID++
	row[oOrderDate] = cell{i: day}
	row[oCustomerID] = cell{i: customer}
	row[oProductID] = cell{i: int64(prod + 1)}
	row[oChannel] = cell{s: "store"}
	if online {
		row[oChannel] = cell{s: "online"}
	}
	row[oQuantity] = cell{i: qty}
	row[oGross] = cell{i: gross}
	row[oDiscount] = cell{i: discount}
	row[oNet] = cell{i: net}
	row[oIsReturned] = cell{b: false}

	if g.perMille(40) {
		// Cancelled before payment: never paid, never shipped.
		row[oStatus] = cell{s: "cancelled"}
		row[oPaymentMethod] = cell{null: true}
		row[oIsPaid] = cell{b: false}
		row[oCollected] = cell{i: 0}
		row[oShippedDate] = cell{null: true}
		row[oDispatchDays] = cell{null: true}
		return
	}

	var method string
	switch {
	case !online:
		method = "card"
		if g.r.IntN(100) < 25 {
			method = "cash"
		}
	case segment == segConsumer:
		method = "card"
		if g.r.IntN(100) < 15 {
			method = "gift_card"
		}
	default:
		method = "card"
		if g.r.IntN(100) < 60 {
			method = "invoice"
		}
	}
	paid := true
	switch {
	case outageDays[day]:
		paid = false
		method = "" // never recorded
	case method == "invoice" && ordersLastDay-day < 30:
		paid = false // net-30 invoice not yet settled at extract time
	}

	var dispatch int64 // store orders are handed over at the till
	if online {
		dispatch = 1 + int64(g.r.IntN(4))
		if _, m, _ := civilFromDays(day); m == 12 {
			dispatch += int64(g.r.IntN(5)) // the December rush
		}
	}

	row[oPaymentMethod] = cell{s: method, null: method == ""}
	row[oIsPaid] = cell{b: paid}
	row[oCollected] = cell{}
	if paid {
		row[oCollected] = cell{i: net}
	}
	if day+dispatch > ordersLastDay {
		// Not yet dispatched when the data was extracted.
		row[oStatus] = cell{s: "pending"}
		row[oShippedDate] = cell{null: true}
		row[oDispatchDays] = cell{null: true}
		return
	}
	row[oStatus] = cell{s: "completed"}
	row[oShippedDate] = cell{i: day + dispatch}
	row[oDispatchDays] = cell{i: dispatch}
	if paid {
		// Returns arrive up to 30 days after the order, so recent orders
		// show fewer of them.
		rate := int64(30)
		if online {
			rate = 80
		}
		age := min(30, ordersLastDay-day)
		returned := int64(g.r.IntN(30_000)) < rate*age
		row[oIsReturned] = cell{b: returned}
		if returned {
			row[oCollected] = cell{} // refunded in full
		}
	}
}
