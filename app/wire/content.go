package wire

import (
	"encoding/json"
	"errors"
	"fmt"

	"sutura.dev/app"
	"sutura.dev/domain"
)

// Content is the structured content of a result that is not a failure,
// byte for byte the same on every transport: the catalogue view, the
// ask_metric outcome or the run_sql outcome. A refusal is content, not an
// error. It fails for a failure, which each transport tells on its own
// failure channel.
func Content(res app.Result) (json.RawMessage, error) {
	switch {
	case res.Failure != nil:
		return nil, fmt.Errorf("wire: a failure (%s) has no content", res.Failure.Code)
	case res.Catalog != nil:
		return CatalogContent(*res.Catalog)
	case res.Capability == domain.RunSQL:
		return SQLContent(app.SQLOutcome{Rows: res.Rows, Refusal: res.Refusal})
	}
	return OutcomeContent(res.Outcome())
}

// OutcomeContent is the structured content of an ask_metric result: the
// outcome's wire body, {"outcome":"answer",...} or {"outcome":"refusal",
// "reason":{code, detail}}. A refusal is content, not an error.
func OutcomeContent(out domain.Outcome) (json.RawMessage, error) {
	return out.MarshalJSON()
}

// CatalogContent is the structured content of a describe_catalog result:
// the catalogue view as the caller may see it.
func CatalogContent(v app.CatalogView) (json.RawMessage, error) {
	return json.Marshal(v)
}

// SQLContent is the structured content of a run_sql result:
// {"outcome":"answer","columns":[{name}],"rows":[...]} with no provenance,
// or the refusal {"outcome":"refusal","reason":{code, detail}}.
func SQLContent(out app.SQLOutcome) (json.RawMessage, error) {
	if out.Refusal != nil {
		return domain.Refused(*out.Refusal).MarshalJSON()
	}
	if out.Rows == nil {
		return nil, errors.New("wire: a run_sql outcome holds neither rows nor a refusal")
	}
	body := sqlAnswerBody{Outcome: "answer", Columns: make([]sqlColumn, len(out.Rows.Columns)), Rows: out.Rows.Rows}
	for i, c := range out.Rows.Columns {
		body.Columns[i] = sqlColumn{Name: c.Name}
	}
	if body.Rows == nil {
		body.Rows = [][]domain.Cell{}
	}
	return json.Marshal(body)
}
