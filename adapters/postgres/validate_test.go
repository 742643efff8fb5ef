package postgres_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"sutura.dev/domain"
)

func TestValidate(t *testing.T) {
	f := needDB(t)
	ctx := context.Background()
	require.NoError(t, open(t, f.config()).Validate(ctx), "the demo tables as the catalogue declares them")

	for _, tc := range []struct {
		name   string
		change func([]domain.Model)
		want   string
	}{
		{"missing table", func(ms []domain.Model) { ms[0].Table = "nowhere.customers" },
			"model customers: table nowhere.customers does not exist (or is not on the search path)"},
		{"missing column", func(ms []domain.Model) {
			ms[1].Columns = append(ms[1].Columns, domain.ModelColumn{Name: "margin_cents"})
		},
			"model orders: table orders has no column margin_cents"},
		{"wrong type", func(ms []domain.Model) { ms[2].Columns[1].Type = domain.TypeDate },
			"model products: column product_name is declared date but is text in the database"},
		{"case matters", func(ms []domain.Model) { ms[3].Columns[1].Name = "Region_Name" },
			"model regions: table regions has no column Region_Name"},
		{"another readable table", func(ms []domain.Model) { ms[0].Table = "slow_base"; ms[0].Columns = cols("i", "integer") }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := f.config()
			cfg.Models = demoModels(source)
			tc.change(cfg.Models)
			err := open(t, cfg).Validate(ctx)
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tc.want)
		})
	}

	// The identity questions run as must be able to read every declared
	// column: the reader has no grant on rls.orders, and under
	// impersonation the verification identity is checked.
	cfg := f.config()
	cfg.Models = rlsDefinitions().Models
	f.exec(t, "REVOKE ALL ON rls.orders FROM "+f.role("reader"))
	require.EqualError(t, open(t, cfg).Validate(ctx),
		"model rls_orders: column order_id of table rls.orders cannot be read by the identity questions run as")
	imp := impersonating(f)
	require.NoError(t, open(t, imp).Validate(ctx))
	imp.VerificationIdentity = f.role("none")
	require.ErrorContains(t, open(t, imp).Validate(ctx), "cannot be read by the identity questions run as")
	imp.VerificationIdentity = ""
	require.NoError(t, open(t, imp).Validate(ctx), "without a verification identity only existence and types are checked")
}
