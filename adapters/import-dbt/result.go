package dbt

import (
	"errors"

	"sutura.dev/adapters/importread"
)

// ErrMalformed is wrapped by every error of Read (each an
// *importread.Error): the input is not a dbt project dbt itself would
// accept (a syntax error, a value of the wrong type, a missing name, a
// duplicate name, a reference to nothing), so nothing of it is imported.
var ErrMalformed = errors.New("the input is not a well-formed dbt semantic layer")

// node is one YAML value of the input, read by the importers' shared
// reader.
type node = importread.Node
