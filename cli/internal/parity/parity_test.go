package parity_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/apptest"
	"sutura.dev/domain"
)

// The calls the cases ask.
const (
	qAnswer   = `{"metrics":["revenue"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"},"dimensions":["city"]}`
	qRefusal  = `{"metrics":["revenue"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"},"filters":[{"op":"eq","dimension":"city","value":"ZZ-canary"}]}`
	qHidden   = `{"metrics":["secret_revenue"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"}}`
	qNotAQ    = `{"metrics":["revenue"],"grain":"fortnight","range":{"start":"2025-01-01","end":"2025-03-01"}}`
	sqlSelect = `{"statement":"select 1"}`
)

// parityCase is one call and the setup it is asked in.
type parityCase struct {
	name  string
	setup setup
	tool  string
	args  string
	// code is the failure every transport must report; "" means an
	// outcome, whose content every transport must give alike.
	code app.FailureCode
	// refusal, when set, is the code of the refusal every transport must
	// give.
	refusal domain.Code
	// contains, when set, is in the content every transport gives.
	contains string
}

// panicking is a data system with a defect: every execution panics.
type panicking struct{}

func (panicking) Execute(context.Context, *domain.Plan) (*domain.RowSet, error) {
	panic("planted: a defect in a data system")
}

// sqlSystem runs statements as set, and plans with two rows.
func sqlSystem(s *apptest.SQL) *apptest.SQL {
	s.System = &apptest.System{Generate: 2}
	return s
}

// parityCases provoke every outcome and every failure a call can end in.
func parityCases() []parityCase {
	down := &apptest.System{Err: errors.New("dial tcp 10.0.0.1: connection refused")}
	zero := &apptest.System{Err: fmt.Errorf("metric revenue: %w", domain.ErrZeroDenominator)}
	fed := func(dims string) string {
		return `{"metrics":["revenue"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"},"dimensions":` + dims + `}`
	}
	dupKey := &apptest.System{Rows: [][]domain.Cell{{domain.Text("k1-00000"), domain.Text("East")}, {domain.Text("k1-00000"), domain.Text("West")}}}
	return []parityCase{
		{name: "describe_catalog", tool: "describe_catalog", args: `{}`},
		{name: "a federated answer", setup: setup{federated: true}, tool: "ask_metric", args: fed(`["store_region","city"]`),
			contains: `"executed_as":[{"posture":"shared-service-user","source":"files"},{"posture":"shared-service-user","source":"shops"}]`},
		{name: "measure_does_not_federate", setup: setup{federated: true}, tool: "ask_metric",
			args: `{"metrics":["cities"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"},"dimensions":["store_region"]}`, refusal: domain.MeasureDoesNotFederate},
		{name: "federation_link_ambiguous", setup: setup{federated: true}, tool: "ask_metric", args: fed(`["store_region","buyer_region"]`), refusal: domain.FederationLinkAmbiguous},
		{name: "plan_needs_too_many_lookup_legs", setup: setup{federated: true, governance: app.Governance{LookupLegCeiling: 1}},
			tool: "ask_metric", args: fed(`["zone"]`), refusal: domain.PlanNeedsTooManyLookupLegs},
		{name: "plan_spans_too_many_sources", setup: setup{federated: true, governance: app.Governance{SourceCeiling: 2}},
			tool: "ask_metric", args: fed(`["zone"]`), refusal: domain.PlanSpansTooManySources},
		{name: "federation_not_executable", setup: setup{federated: true, noCombiner: true}, tool: "ask_metric", args: fed(`["store_region"]`),
			refusal: domain.FederationNotExecutable},
		{name: "federated_answer_not_well_formed", setup: setup{federated: true, stores: dupKey}, tool: "ask_metric", args: fed(`["store_region"]`),
			refusal: domain.FederatedAnswerNotWellFormed},
		{name: "result_too_large from a leg", setup: setup{federated: true, governance: app.Governance{MaxLegRows: 1}},
			tool: "ask_metric", args: fed(`["store_region"]`), refusal: domain.ResultTooLarge},
		{name: "answer", tool: "ask_metric", args: qAnswer},
		{name: "refusal", tool: "ask_metric", args: qRefusal},
		{name: "a hidden metric is a missing one", tool: "ask_metric", args: qHidden},
		{name: "run_sql rows", setup: setup{sys: sqlSystem(&apptest.SQL{Generate: 3}), sql: true}, tool: "run_sql", args: sqlSelect},
		{name: "run_sql refusal", setup: setup{sys: sqlSystem(&apptest.SQL{Err: &domain.RefusalError{Reason: domain.Refuse(domain.SourceRefused, "read-only")}}), sql: true},
			tool: "run_sql", args: sqlSelect},

		{name: "not_a_question", tool: "ask_metric", args: qNotAQ, code: app.CodeNotAQuestion},
		{name: "not_a_question of run_sql", setup: setup{sys: sqlSystem(&apptest.SQL{}), sql: true}, tool: "run_sql", args: `{"sql":"x"}`, code: app.CodeNotAQuestion},
		{name: "tool_not_enabled", setup: setup{sys: sqlSystem(&apptest.SQL{})}, tool: "run_sql", args: sqlSelect, code: app.CodeToolNotEnabled},
		{name: "insufficient_scope", setup: setup{scopes: []string{"sutura:catalog.read"}}, tool: "ask_metric", args: qAnswer, code: app.CodeInsufficientScope},
		{name: "at_capacity", setup: setup{max: 1, admissionTimeout: time.Second, hold: true}, tool: "ask_metric", args: qAnswer, code: app.CodeAtCapacity},
		{name: "timeout", setup: setup{max: 1, admissionTimeout: 5 * time.Second, requestTimeout: 2 * time.Second, hold: true},
			tool: "ask_metric", args: qAnswer, code: app.CodeTimeout},
		{name: "unavailable", setup: setup{sys: down}, tool: "ask_metric", args: qAnswer, code: app.CodeUnavailable},
		{name: "zero_denominator", setup: setup{sys: zero}, tool: "ask_metric", args: qAnswer, code: app.CodeZeroDenominator},
		{name: "statement_failed", setup: setup{sys: sqlSystem(&apptest.SQL{Err: &apptest.StatementError{Text: "syntax error"}}), sql: true},
			tool: "run_sql", args: sqlSelect, code: app.CodeStatementFailed},
		{name: "internal: the audit cannot be written", setup: setup{auditFails: true}, tool: "ask_metric", args: qAnswer, code: app.CodeInternal},
		{name: "internal: a panic in the data system", setup: setup{sys: panicking{}}, tool: "ask_metric", args: qAnswer, code: app.CodeInternal},
	}
}

// TestTransportParity asks each case through every transport, each time
// of a fresh process, and requires the same observation — the same content
// or the same failure code — and the same audit records from all of them.
func TestTransportParity(t *testing.T) {
	for _, tc := range parityCases() {
		t.Run(tc.name, func(t *testing.T) {
			var (
				first     observed
				firstRecs []domain.AuditRecord
			)
			for i, tr := range transports {
				e := newEnv(t, tc.setup)
				got := tr.call(t, e, tc.tool, tc.args)
				recs := e.records()
				if tc.code != "" {
					assert.Equal(t, string(tc.code), got.code, "%s reports the failure's code", tr.name)
				} else {
					assert.Empty(t, got.code, "%s answers", tr.name)
					assert.NotContains(t, got.content, "ZZ-canary", "%s echoes no caller value", tr.name)
				}
				if tc.contains != "" {
					assert.Contains(t, got.content, tc.contains, "%s", tr.name)
				}
				if tc.refusal != "" {
					assert.Contains(t, got.content, `"code":"`+string(tc.refusal)+`"`, "%s refuses with the code", tr.name)
				}
				if i == 0 {
					first, firstRecs = got, recs
					continue
				}
				assert.Equal(t, first, got, "%s observes what %s does", tr.name, transports[0].name)
				assert.Equal(t, firstRecs, recs, "%s audits what %s does", tr.name, transports[0].name)
			}
			for _, r := range firstRecs {
				if r.Outcome == "failure" {
					assert.Equal(t, string(tc.code), r.Code, "the audit record holds the code the caller got")
				}
			}
		})
	}
}

// TestEveryCallFailureIsProvoked: the parity cases cover every code of the
// failure table a call can end in (all but the HTTP gates' own and
// cancelled, after which nobody is told anything).
func TestEveryCallFailureIsProvoked(t *testing.T) {
	provoked := map[app.FailureCode]bool{}
	for _, tc := range parityCases() {
		provoked[tc.code] = true
	}
	gates := map[app.FailureCode]bool{app.CodeUnauthorized: true, app.CodeHostNotAllowed: true, app.CodeTooLarge: true,
		app.CodeUnsupportedMediaType: true,
		app.CodeRateLimited:          true, app.CodeIdentityUnavailable: true, app.CodeNotFound: true, app.CodeMethodNotAllowed: true,
		app.CodeCancelled: true}
	for _, c := range app.FailureCodes() {
		if !gates[c] {
			assert.True(t, provoked[c], "no parity case provokes %s", c)
		}
	}
}

// TestServingContinuesAfterAPanic: after a data system panicked in a
// call, every transport goes on answering, and the panic was audited as an
// internal failure.
func TestServingContinuesAfterAPanic(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			e := newEnv(t, setup{sys: panicking{}})
			require.Equal(t, string(app.CodeInternal), tr.call(t, e, "ask_metric", qAnswer).code)
			again := tr.call(t, e, "ask_metric", qAnswer)
			assert.Equal(t, string(app.CodeInternal), again.code, "and again, without a crash")
			assert.Empty(t, tr.call(t, e, "describe_catalog", `{}`).code, "the process still answers")
			recs := e.audit.Records()
			require.Len(t, recs, 2)
			for _, r := range recs {
				assert.Equal(t, "failure", r.Outcome)
				assert.Equal(t, string(app.CodeInternal), r.Code)
			}
			assert.Equal(t, 0, e.adm.InUse(), "the slot came back")
		})
	}
}
