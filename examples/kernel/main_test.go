package main

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"testing"

	"sutura.dev/examples/demo"
)

// TestKernelRuns runs the example as CI does and checks what it printed:
// the registration, an answer with its measured cost, and the kernel's own
// guard stopping an ungranted capability.
func TestKernelRuns(t *testing.T) {
	var out, logs bytes.Buffer
	if err := run(context.Background(), &out, &logs); err != nil {
		t.Fatalf("run: %v\n%s", err, logs.String())
	}
	// The question reads orders and, for area, customers and regions: every
	// row of the three tables. compose.Open re-ran the anchors before it
	// returned, which cached the columns of orders they read, so the bytes
	// are partly cached column bytes: more than none, at most the files'.
	var rows, size int64
	for _, table := range []string{"orders", "customers", "regions"} {
		b, err := fs.ReadFile(demo.Data(), table+".csv")
		if err != nil {
			t.Fatal(err)
		}
		rows += int64(bytes.Count(b, []byte("\n")) - 1) // less the header
		size += int64(len(b))
	}
	for _, want := range []string{
		"registered sutura: tools [describe_catalog ask_metric], realized cost measured: true",
		"ask_metric: answer, 20 rows",
		fmt.Sprintf("realized cost: %d rows scanned, ", rows),
		"bytes read, 20 rows returned, sources [demo], measured true",
		"guard: kernel guard: capability sutura/run_sql not granted",
	} {
		if !bytes.Contains(out.Bytes(), []byte(want)) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	var read int64
	i := bytes.Index(out.Bytes(), []byte("rows scanned, "))
	if i < 0 {
		t.Fatalf("no realized cost in:\n%s", out.String())
	}
	if _, err := fmt.Sscanf(out.String()[i:], "rows scanned, %d bytes read", &read); err != nil {
		t.Fatalf("no bytes read in:\n%s", out.String())
	}
	if read <= 0 || read > size {
		t.Errorf("%d bytes read, want more than none and at most the files' %d", read, size)
	}
}
