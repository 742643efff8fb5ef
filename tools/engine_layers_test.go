package tools_test

import (
	"testing"

	"sutura.dev/tools"
)

func TestEngineLayers(t *testing.T) {
	checkRule(t, tools.RuleEngineLayers, []ruleCase{{
		name: "planted",
		root: fixture("engine-layers"),
		want: []want{
			{"module exec-arrow, package sutura.dev/exec-arrow/internal/format, file exec-arrow/internal/format/format.go:6",
				`imports sutura.dev/exec-arrow/internal/kernel, of layer "internal/kernel", above its own layer "internal/format"`},
			{"module exec-arrow, package sutura.dev/exec-arrow/internal/files_test (tests), file exec-arrow/internal/files/files_test.go:6",
				`imports sutura.dev/exec-arrow, of layer ".", above its own layer "internal/files"`},
			{"module exec-arrow, package sutura.dev/exec-arrow/internal/mystery",
				"package sutura.dev/exec-arrow/internal/mystery is in no layer: add it to EngineLayers"},
		},
	}})
}
