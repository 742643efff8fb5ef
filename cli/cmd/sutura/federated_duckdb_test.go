//go:build cgo

package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"sutura.dev/adapters/duckdb"
	"sutura.dev/adapters/duckdb/ducktest"
	"sutura.dev/app"
	"sutura.dev/app/conformance"
	"sutura.dev/domain"
	"sutura.dev/examples/demo"
)

// onDuckDB builds a DuckDB file of models' tables and opens it.
func onDuckDB(t *testing.T, alias string, models []domain.Model) app.DataSystem {
	db, err := duckdb.New(context.Background(), ducktest.Config(alias, ducktest.Build(t, demo.Data(), models), models))
	require.NoError(t, err)
	t.Cleanup(db.Close)
	return db
}

// TestFederatedCorpusOnFilesAndDuckDB runs the conformance corpus on the
// demo split across the embedded engine and a DuckDB file: every answer,
// cell for cell and in order, every refusal and failure as on one system.
func TestFederatedCorpusOnFilesAndDuckDB(t *testing.T) {
	conformance.Run(t, federatedDemo(t, productsRemote, map[string]opener{"files": onFiles, "remote": onDuckDB}, nil))
}

// TestFederatedDifferentialOnFilesAndDuckDB asks 500 random questions of
// each split of the demo across files and DuckDB (orders local with the
// store tables in DuckDB, the reverse, and three sources: files, DuckDB
// and Postgres) and of the demo on one system, and requires identical
// outcomes.
func TestFederatedDifferentialOnFilesAndDuckDB(t *testing.T) {
	ref := filesOnly(t)
	for name, split := range map[string]map[string]string{"stores remote": storesRemote, "orders remote": ordersRemote} {
		t.Run(name, func(t *testing.T) {
			differential(t, federatedDemo(t, split, map[string]opener{"files": onFiles, "remote": onDuckDB}, nil), ref, 2027)
		})
	}
	t.Run("three sources", func(t *testing.T) {
		split := map[string]string{"orders": "files", "customers": "crm", "regions": "crm", "products": "shop"}
		differential(t, federatedDemo(t, split, map[string]opener{"files": onFiles, "crm": onPostgres, "shop": onDuckDB}, nil), ref, 2028)
	})
}

// TestServeTheFederatedDemoOnDuckDB serves the federated demo of
// docs/operations.md from configuration alone: the orders in the demo's
// CSV files, the store tables in a DuckDB file built at test time.
func TestServeTheFederatedDemoOnDuckDB(t *testing.T) {
	path := ducktest.Build(t, demo.Data(), storeModelsOf(t))
	servesTheFederatedDemo(t, federatedDemoConfig(t, "{kind: duckdb, posture: shared-service-user, path: "+path+", threads: 2}", nil), "duckdb")
}
