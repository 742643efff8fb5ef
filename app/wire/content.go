package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"sutura.dev/app"
	"sutura.dev/domain"
)

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

// Arguments returns args, or {} when a call carried none: a tool called
// without arguments is called with the empty object.
func Arguments(args json.RawMessage) json.RawMessage {
	if len(args) == 0 {
		return json.RawMessage(`{}`)
	}
	return args
}

// ParseDescribeCatalogArgs accepts exactly {}, the arguments of
// describe_catalog. An unknown field is named when it is an identifier and
// described otherwise, as the question parser does; the error is a
// *domain.FieldError and never holds a caller value.
func ParseDescribeCatalogArgs(args json.RawMessage) error {
	v, err := domain.DecodeJSON(args)
	if err != nil {
		return err
	}
	obj, ok := v.(domain.Object)
	if !ok {
		return &domain.FieldError{Problem: "must be an object ({})"}
	}
	if len(obj) > 0 {
		name := "(a field whose name is not an identifier)"
		if domain.CheckIdent(obj[0].Key) == nil {
			name = obj[0].Key
		}
		return &domain.FieldError{Field: name, Problem: "is not a field: describe_catalog takes {}"}
	}
	return nil
}

// textNotAQuestionHead opens the sentence of arguments that are not a
// question.
const textNotAQuestionHead = "the arguments are not a question: "

// NotAQuestion is the sentence for arguments that are not a question: a
// *domain.FieldError names the field and never holds a caller value; any
// other error is replaced by a fixed sentence.
func NotAQuestion(err error) string {
	var fe *domain.FieldError
	if errors.As(err, &fe) {
		return textNotAQuestionHead + fe.Error()
	}
	return textNotAQuestionHead + "they could not be read"
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

// ParseRunSQLArgs reads the arguments of run_sql: exactly
// {"statement": "<non-empty text of at most app.MaxStatementBytes bytes>"}.
// An unknown field is named when it is an identifier and described
// otherwise; the error is a *domain.FieldError and never holds the
// statement or any other caller value.
func ParseRunSQLArgs(args json.RawMessage) (string, error) {
	v, err := domain.DecodeJSON(args)
	if err != nil {
		return "", err
	}
	obj, ok := v.(domain.Object)
	if !ok {
		return "", &domain.FieldError{Problem: `must be an object ({"statement": "..."})`}
	}
	var (
		statement string
		seen      bool
	)
	for _, m := range obj {
		if m.Key != "statement" {
			name := "(a field whose name is not an identifier)"
			if domain.CheckIdent(m.Key) == nil {
				name = m.Key
			}
			return "", &domain.FieldError{Field: name, Problem: "is not a field: run_sql takes {statement}"}
		}
		if seen {
			return "", &domain.FieldError{Field: "statement", Problem: "is given twice"}
		}
		seen = true
		s, ok := m.Value.(string)
		if !ok {
			return "", &domain.FieldError{Field: "statement", Problem: "must be a string"}
		}
		statement = s
	}
	switch {
	case !seen:
		return "", &domain.FieldError{Field: "statement", Problem: "is required"}
	case strings.TrimSpace(statement) == "":
		return "", &domain.FieldError{Field: "statement", Problem: "must not be empty"}
	case len(statement) > app.MaxStatementBytes:
		return "", &domain.FieldError{Field: "statement", Problem: fmt.Sprintf("is longer than %d bytes", app.MaxStatementBytes)}
	}
	return statement, nil
}
