package mdcatalog_test

import (
	"testing"

	mdcatalog "sutura.dev/adapters/catalog-markdown"
	"sutura.dev/app/conformance"
	"sutura.dev/domain"
)

// TestCatalogConformance runs the catalogue contract suite against this
// reader over the demo catalogue.
func TestCatalogConformance(t *testing.T) {
	conformance.RunCatalog(t, func(version string) (*domain.Bundle, error) {
		return mdcatalog.LoadDir("../../examples/demo/catalog", version)
	})
}
