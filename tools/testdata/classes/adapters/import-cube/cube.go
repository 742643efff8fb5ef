// Package cube plants an importer importing another importer.
package cube

import (
	dbt "sutura.dev/adapters/import-dbt" // planted: importers are catalogues too
	"sutura.dev/domain"
)

// Import imports a question the way another importer does.
func Import(q domain.Question) string { return dbt.Import(q) }
