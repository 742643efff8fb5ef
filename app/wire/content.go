package wire

import (
	"encoding/json"
	"errors"

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
