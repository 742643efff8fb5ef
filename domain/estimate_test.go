package domain

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"
)

func TestEstimateWireBody(t *testing.T) {
	budget := Refuse(BudgetExhausted, "spent").WithRetryAfter(1500 * time.Millisecond)
	tests := []struct {
		name string
		e    Estimate
		want string
	}{
		{"known and unknown legs", Estimate{Bytes: 10, PerLeg: []LegEstimate{{Source: "files", Bytes: 10, Known: true}, {Source: "pg"}}},
			`{"outcome":"estimate","estimate":{"bytes":10,"per_leg":[{"source":"files","bytes":10},{"source":"pg","bytes":"unknown"}]},"would_refuse":null}`},
		{"would be refused", Estimate{Bytes: 5, PerLeg: []LegEstimate{{Source: "files", Bytes: 5, Known: true}}, WouldRefuse: &budget},
			`{"outcome":"estimate","estimate":{"bytes":5,"per_leg":[{"source":"files","bytes":5}]},"would_refuse":"budget_exhausted","reason":{"code":"budget_exhausted","detail":"spent","retry_after_seconds":2}}`},
		{"no legs", Estimate{}, `{"outcome":"estimate","estimate":{"bytes":0,"per_leg":[]},"would_refuse":null}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := Outcome{Estimate: &tt.e}
			if out.Kind() != "estimate" {
				t.Fatalf("Kind() = %s", out.Kind())
			}
			b, err := out.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			var got, want any
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %s\nwant %s", b, tt.want)
			}
		})
	}
}

func TestDryRunParses(t *testing.T) {
	base := `{"metrics":["m"],"grain":"month","range":{"start":"2026-01-01","end":"2026-02-01"}`
	tests := []struct {
		tail  string
		want  bool
		field string
	}{
		{`,"dry_run":true}`, true, ""},
		{`,"dry_run":false}`, false, ""},
		{`}`, false, ""},
		{`,"dry_run":"yes"}`, false, "dry_run"},
	}
	for _, tt := range tests {
		q, err := ParseQuestion([]byte(base + tt.tail))
		var fe *FieldError
		switch {
		case tt.field != "":
			if !errors.As(err, &fe) || fe.Field != tt.field {
				t.Errorf("%s: err = %v, want a field error on %s", tt.tail, err, tt.field)
			}
		case err != nil:
			t.Errorf("%s: %v", tt.tail, err)
		case q.DryRun != tt.want:
			t.Errorf("%s: DryRun = %v", tt.tail, q.DryRun)
		}
	}
}

func TestRetryAfterRoundsUp(t *testing.T) {
	r := Refuse(BudgetExhausted, "x")
	for _, tt := range []struct {
		d    time.Duration
		want int64
	}{{0, 0}, {time.Millisecond, 1}, {time.Minute, 60}, {61500 * time.Millisecond, 62}} {
		if got := r.WithRetryAfter(tt.d).RetryAfterSeconds(); got != tt.want {
			t.Errorf("%v: %d, want %d", tt.d, got, tt.want)
		}
	}
}
