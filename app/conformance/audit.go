package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"sutura.dev/app"
	"sutura.dev/domain"
)

// AuditSinkUnderTest is an audit sink and a way to read back, in the
// order written, every record it has stored: the lines of its stream, the
// file reopened, the rows of its table.
type AuditSinkUnderTest struct {
	Sink app.AuditSink
	// Stored returns the records stored so far.
	Stored func(t *testing.T) []domain.AuditRecord
}

// RunAuditSink is the contract suite of the audit-sink port: with a fresh
// sink from newSink for each check,
//   - every field of a record is stored and read back unchanged;
//   - a run_sql call's two records (started, then its outcome) are both
//     kept, in order, so a record exists for every response;
//   - a record written with a context that is already cancelled is still
//     stored (the pipeline writes with a context of its own, but a sink
//     must not drop a record for it);
//   - records written concurrently are each stored whole, none lost.
func RunAuditSink(t *testing.T, newSink func(t *testing.T) AuditSinkUnderTest) {
	t.Helper()
	t.Run("stores every field", func(t *testing.T) {
		s := newSink(t)
		r := fullRecord(1)
		if err := s.Sink.Write(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		requireStored(t, s.Stored(t), []domain.AuditRecord{r})
	})
	t.Run("keeps run_sql's start and outcome records", func(t *testing.T) {
		s := newSink(t)
		started := domain.AuditRecord{Time: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC), CorrelationID: "c-sql",
			Principal: []string{"analyst"}, Capability: domain.RunSQL, Outcome: "started", Statement: "select 1",
			ExecutedAs: []domain.ExecutedAs{{Source: "pg", Posture: domain.SharedServiceUser}}}
		done := started
		done.Outcome, done.Rows, done.DurationMS = "answer", 1, 2.5
		for _, r := range []domain.AuditRecord{started, done} {
			if err := s.Sink.Write(context.Background(), r); err != nil {
				t.Fatal(err)
			}
		}
		requireStored(t, s.Stored(t), []domain.AuditRecord{started, done})
	})
	t.Run("stores a record whose context ended", func(t *testing.T) {
		s := newSink(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		r := fullRecord(2)
		r.Outcome, r.Code = "failure", string(app.CodeCancelled)
		if err := s.Sink.Write(ctx, r); err != nil {
			t.Fatalf("a cancelled context lost the record: %v", err)
		}
		requireStored(t, s.Stored(t), []domain.AuditRecord{r})
	})
	t.Run("stores concurrent records whole", func(t *testing.T) {
		s := newSink(t)
		const n = 64
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := range n {
			wg.Go(func() {
				if err := s.Sink.Write(context.Background(), fullRecord(i)); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		got := s.Stored(t)
		seen := map[int]bool{}
		for _, r := range got {
			want := fullRecord(r.Rows)
			if !sameRecord(r, want) {
				t.Fatalf("record %d was not stored whole:\n got %+v\nwant %+v", r.Rows, r, want)
			}
			seen[r.Rows] = true
		}
		if len(got) != n || len(seen) != n {
			t.Fatalf("%d records stored (%d distinct), want %d", len(got), len(seen), n)
		}
	})
}

// fullRecord is a record with every field set; i tells records apart.
func fullRecord(i int) domain.AuditRecord {
	r := domain.Range{Start: domain.DateOf(2026, 1, 1), End: domain.DateOf(2026, 4, 1)}
	return domain.AuditRecord{
		Time: time.Date(2026, 3, 1, 9, 0, i%60, 0, time.UTC), CorrelationID: fmt.Sprintf("c-%d", i),
		Principal: []string{"alice", "agent-7"}, Capability: domain.AskMetric, Metrics: []string{"net_sales", "orders"},
		Grain: "month", Range: &r, Dimensions: []string{"area"}, FilterDimensions: []string{"channel"},
		Outcome: "answer", Rows: i, DefinitionDigest: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		ExecutedAs: []domain.ExecutedAs{{Source: "demo", Posture: domain.SharedServiceUser}}, DurationMS: 12.25,
	}
}

// sameRecord compares two records by their JSON, the form sinks store.
func sameRecord(a, b domain.AuditRecord) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}

func requireStored(t *testing.T, got, want []domain.AuditRecord) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d records stored, want %d", len(got), len(want))
	}
	for i := range want {
		if !sameRecord(got[i], want[i]) {
			t.Fatalf("record %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
}
