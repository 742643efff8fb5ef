package wire

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/domain"
)

const canary = "ZZ-canary-71d0"

func TestOutcomeContentIsTheOutcomesWireBody(t *testing.T) {
	for name, out := range map[string]domain.Outcome{
		"answer": domain.Answered(&domain.Answer{
			RowSet:     domain.RowSet{Columns: []domain.Column{{Name: "period", Role: domain.RolePeriod}}, Rows: [][]domain.Cell{{domain.DateCell(domain.DateOf(2025, 1, 1))}}},
			Provenance: domain.Provenance{DefinitionVersion: "v1", DefinitionDigest: "d"},
		}),
		"refusal": domain.Refused(domain.Refuse(domain.GrainNotSupported, "metric revenue does not declare grain day")),
	} {
		t.Run(name, func(t *testing.T) {
			got, err := OutcomeContent(out)
			require.NoError(t, err)
			want, err := out.MarshalJSON()
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got))
			assert.True(t, json.Valid(got))
		})
	}
	_, err := OutcomeContent(domain.Outcome{})
	require.Error(t, err, "an outcome holds an answer or a refusal")
}

func TestContentDispatchesOnTheResult(t *testing.T) {
	v := app.CatalogView{DefinitionVersion: "v1", Metrics: []app.MetricView{}}
	r := domain.Refuse(domain.ResultTooLarge, "too many rows")
	for name, tc := range map[string]struct {
		res  app.Result
		want func() (json.RawMessage, error)
	}{
		"catalog": {app.Result{Capability: domain.DescribeCatalog, Catalog: &v}, func() (json.RawMessage, error) { return CatalogContent(v) }},
		"refusal": {app.Result{Capability: domain.AskMetric, Refusal: &r}, func() (json.RawMessage, error) { return OutcomeContent(domain.Refused(r)) }},
		"sql rows": {app.Result{Capability: domain.RunSQL, Rows: &domain.RowSet{}}, func() (json.RawMessage, error) {
			return SQLContent(app.SQLOutcome{Rows: &domain.RowSet{}})
		}},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := Content(tc.res)
			require.NoError(t, err)
			want, err := tc.want()
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got))
		})
	}
	_, err := Content(app.Result{Capability: domain.AskMetric, Failure: &app.Failure{Code: app.CodeTimeout}})
	require.Error(t, err, "a failure has no content")
}

func TestCatalogContent(t *testing.T) {
	v := app.CatalogView{DefinitionVersion: "v1", Metrics: []app.MetricView{}}
	got, err := CatalogContent(v)
	require.NoError(t, err)
	want, err := json.Marshal(v)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
}

func TestSQLContent(t *testing.T) {
	got, err := SQLContent(app.SQLOutcome{Rows: &domain.RowSet{Columns: []domain.Column{{Name: "n", Role: domain.RoleMetric}},
		Rows: [][]domain.Cell{{domain.Int(1)}, {domain.Null()}}}})
	require.NoError(t, err)
	assert.Equal(t, `{"outcome":"answer","columns":[{"name":"n"}],"rows":[["1"],[null]]}`, string(got))
	got, err = SQLContent(app.SQLOutcome{Rows: &domain.RowSet{}})
	require.NoError(t, err)
	assert.Equal(t, `{"outcome":"answer","columns":[],"rows":[]}`, string(got))
	r := domain.Refuse(domain.ResultTooLarge, "too many rows")
	got, err = SQLContent(app.SQLOutcome{Refusal: &r})
	require.NoError(t, err)
	want, err := domain.Refused(r).MarshalJSON()
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
	_, err = SQLContent(app.SQLOutcome{})
	require.Error(t, err)
}
