package postgres_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"sutura.dev/app/conformance"
	"sutura.dev/domain"
)

// The demo tables as PostgreSQL holds them, for the demo catalogue the
// conformance suite mirrors (conformance.DemoDefinitions).

// demoDDL creates the demo tables with the column types of the catalogue's
// models. orders uses bigint (sum is numeric in PostgreSQL), customers
// integer (sum is bigint), so both integer paths are read.
const demoDDL = `
CREATE TABLE regions (region_id integer, region_name text);
CREATE TABLE products (product_id integer, product_name text, category text, unit_price_cents bigint);
CREATE TABLE customers (customer_id integer, region_id integer, segment text, signup_date date);
CREATE TABLE orders (
  order_id bigint, order_date date, customer_id bigint, product_id bigint,
  channel text, status text, payment_method text, is_paid boolean,
  quantity bigint, gross_amount_cents bigint, discount_cents bigint,
  net_amount_cents bigint, collected_cents bigint, shipped_date date,
  dispatch_days integer, is_returned boolean);
`

// demoTables are the tables loaded with COPY from examples/demo/data.
var demoTables = []string{"regions", "products", "customers", "orders"}

// demoModels, demoDefinitions and demoBundle are the demo catalogue as
// the conformance suite mirrors it.
func demoModels(source string) []domain.Model { return conformance.DemoDefinitions(source).Models }

func demoDefinitions(source string) domain.Definitions { return conformance.DemoDefinitions(source) }

func demoBundle(t testing.TB, source string) *domain.Bundle {
	t.Helper()
	b, err := conformance.DemoBundle(source)
	require.NoError(t, err)
	return b
}
