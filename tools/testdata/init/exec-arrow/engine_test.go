package execarrow

import "testing"

var fixture *Engine

func init() { fixture = &Engine{} } // planted: test files of adapters too

func TestReady(t *testing.T) {
	if !fixture.Ready() {
		t.Fatal("not ready")
	}
}
