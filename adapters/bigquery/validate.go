package bigquery

import (
	"context"
	"errors"
	"fmt"
	"strings"

	bq "cloud.google.com/go/bigquery"
	"google.golang.org/api/googleapi"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
)

// Validate checks, at start, that the table of every model exists, in
// the configured location, and holds each declared column with a type of the declared kind (its schema
// from tables.get: free, and what INFORMATION_SCHEMA.COLUMNS says, without
// a job that bills ten megabytes a table), and that the service account
// may read them: a dry run of a read of the declared columns, which
// BigQuery checks every permission of without running or billing it. It
// is the optional app.Validator ability. The error names the model and
// the column, or is an *Error or a refusal when BigQuery cannot be asked.
func (db *DB) Validate(ctx context.Context) error {
	ctx, cancel := sqlsource.Budget(ctx, db.cfg.DefaultTimeout)
	defer cancel()
	for i := range db.cfg.Models {
		m := &db.cfg.Models[i]
		t, err := db.cfg.tableOf(m)
		if err != nil {
			return err
		}
		md, err := db.client.DatasetInProject(t.project, t.dataset).Table(t.name).Metadata(ctx)
		var ge *googleapi.Error
		if errors.As(err, &ge) && ge.Code == 404 {
			return fmt.Errorf("model %s: table %s does not exist", m.Name, m.Table)
		}
		if err != nil {
			return db.classify(ctx, err)
		}
		if md.Location != "" && !strings.EqualFold(md.Location, db.cfg.Location) {
			// Jobs run in one location and cannot read a dataset of another.
			return configError(db.cfg.Source, "location",
				fmt.Sprintf("is %s, but the table of model %s is in %s: jobs run in one location and read only datasets there", db.cfg.Location, m.Name, md.Location))
		}
		if err := checkModel(m, md.Schema); err != nil {
			return err
		}
		if err := db.probe(ctx, m, t); err != nil {
			return err
		}
	}
	return nil
}

// probe dry-runs a read of m's declared columns: BigQuery checks that the
// service account may read them.
func (db *DB) probe(ctx context.Context, m *domain.Model, t table) error {
	sel := make([]string, 0, len(m.Columns))
	for _, c := range m.Columns {
		sel = append(sel, quoteIdent(c.Name))
	}
	if len(sel) == 0 {
		sel = []string{"1"}
	}
	// Identifiers of the configuration and the catalogue, quoted; no value.
	sql := "SELECT " + strings.Join(sel, ", ") + " FROM " +
		quoteIdent(t.project) + "." + quoteIdent(t.dataset) + "." + quoteIdent(t.name) + " LIMIT 0"
	_, err := db.dryRun(ctx, sql, nil)
	var re *domain.RefusalError
	if errors.As(err, &re) && re.Reason.Code() == domain.SourceRefused {
		return fmt.Errorf("model %s: table %s cannot be read by the service account of source %s", m.Name, m.Table, db.cfg.Source)
	}
	return err
}

// quoteIdent quotes a name as a BigQuery identifier.
func quoteIdent(s string) string {
	return "`" + strings.NewReplacer(`\`, `\\`, "`", "\\`").Replace(s) + "`"
}

// checkModel checks m's declared columns against the table's schema.
// BigQuery's column names are case-insensitive.
func checkModel(m *domain.Model, schema bq.Schema) error {
	cols := sqlsource.TableColumns[*bq.FieldSchema]{}
	for _, f := range schema {
		cols[strings.ToLower(f.Name)] = f
	}
	typeName := func(f *bq.FieldSchema) string {
		if f.Repeated {
			return "ARRAY<" + string(f.Type) + ">"
		}
		return string(f.Type)
	}
	return sqlsource.CheckModel(m, cols, strings.ToLower, typeFits, typeName, nil)
}

// typeFits reports whether a BigQuery column can stand for a declared
// column type: what the SQL does with it and how its cells render depend
// on the kind, not on the width.
func typeFits(want domain.ColumnType, f *bq.FieldSchema) bool {
	if f.Repeated || f.Type == bq.RecordFieldType {
		return false
	}
	decimal := f.Type == bq.NumericFieldType || f.Type == bq.BigNumericFieldType
	switch want {
	case domain.TypeUnset:
		return true
	case domain.TypeInteger:
		// A parameterized NUMERIC(p, 0) holds integers only.
		return f.Type == bq.IntegerFieldType || decimal && f.Precision > 0 && f.Scale == 0
	case domain.TypeFloat, domain.TypeDecimal:
		return f.Type == bq.FloatFieldType || decimal
	case domain.TypeText:
		return f.Type == bq.StringFieldType
	case domain.TypeBoolean:
		return f.Type == bq.BooleanFieldType
	case domain.TypeDate:
		return f.Type == bq.DateFieldType
	case domain.TypeTimestamp:
		return f.Type == bq.TimestampFieldType || f.Type == bq.DateTimeFieldType
	}
	return false
}
