package files_test

import (
	"testing"

	execarrow "sutura.dev/exec-arrow" // planted: a test of the lowest layer imports the root
)

func TestRun(t *testing.T) { _ = execarrow.Run() }
