package main

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	mdcatalog "sutura.dev/adapters/catalog-markdown"
	"sutura.dev/adapters/clickhouse/chtest"
	"sutura.dev/adapters/postgres/pgtest"
	"sutura.dev/cli/internal/telemetry/otlptest"
	"sutura.dev/domain"
	"sutura.dev/examples/demo"
)

// explained is the part of an answer's wire body these tests read.
type explained struct {
	Outcome     string `json:"outcome"`
	Explanation struct {
		Definitions []domain.DefinitionWords `json:"definitions"`
		Legs        []domain.LegAccount      `json:"legs"`
		DataThrough []domain.DataThrough     `json:"data_through"`
		Notes       []string                 `json:"notes"`
		Statements  []domain.Statement       `json:"statements"`
		TraceID     string                   `json:"trace_id"`
	} `json:"explanation"`
}

func decodeExplained(t *testing.T, body string) explained {
	t.Helper()
	var e explained
	require.NoError(t, json.Unmarshal([]byte(body), &e), body)
	require.Equal(t, "answer", e.Outcome, body)
	return e
}

// traceparentOf is a caller's W3C traceparent in trace.
func traceparentOf(trace string) string { return "00-" + trace + "-00f067aa0ba902b7-01" }

// TestTracesReachTheCollector serves the embedded demo with
// telemetry.otlp_endpoint set to a real OTLP/HTTP receiver: a question
// over HTTP with a traceparent header and one over MCP with it in the
// request's _meta are each answered with that trace id in the explanation
// (and the audit record), and the receiver gets the spans of the call,
// the pipeline, the leg and the data system call in the caller's trace. A
// malformed traceparent starts a new trace and is never echoed.
func TestTracesReachTheCollector(t *testing.T) {
	rcv := otlptest.Start(t)
	s := serve(t, "SUTURA__TELEMETRY__OTLP_ENDPOINT="+rcv.URL)

	const overHTTP = "4bf92f3577b34da6a3ce929d0e0e4736"
	status, _, body := s.do(t, "POST", "/v1/query", year2025, "traceparent", traceparentOf(overHTTP), "tracestate", "vendor=1")
	require.Equal(t, 200, status, body)
	e := decodeExplained(t, body)
	assert.Equal(t, overHTTP, e.Explanation.TraceID)
	require.Len(t, e.Explanation.Legs, 1)
	assert.Contains(t, []string{domain.CacheHit, domain.CachePartial, domain.CacheMiss}, e.Explanation.Legs[0].Cache, "the embedded engine says whether it answered from its cache")
	assert.NotEmpty(t, e.Explanation.DataThrough, "the demo's files tell how far their data reaches")
	require.Len(t, e.Explanation.Definitions, 1)
	assert.NotEmpty(t, e.Explanation.Definitions[0].Measure)

	status, _, body = s.do(t, "POST", "/v1/query", year2025, "traceparent", "00-ZZcanaryZZ-00f067aa0ba902b7-01")
	require.Equal(t, 200, status, "a malformed traceparent is never an error")
	assert.NotContains(t, body, "ZZcanary", "and never echoed")
	fresh := decodeExplained(t, body).Explanation.TraceID
	assert.Regexp(t, `^[0-9a-f]{32}$`, fresh, "a new trace starts")
	assert.NotEqual(t, overHTTP, fresh)

	const overMCP = "0af7651916cd43dd8448eb211c80319c"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sess, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: s.base + "/mcp"}, nil)
	require.NoError(t, err)
	defer sess.Close()
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Meta: mcp.Meta{"traceparent": traceparentOf(overMCP)},
		Name: "ask_metric", Arguments: json.RawMessage(year2025)})
	require.NoError(t, err)
	require.False(t, res.IsError)
	content, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	assert.Equal(t, overMCP, decodeExplained(t, string(content)).Explanation.TraceID, "MCP _meta carries the trace context")
	text := res.Content[0].(*mcp.TextContent).Text
	assert.Contains(t, text, "trace_id: "+overMCP, "the text block explains the answer too")
	assert.Contains(t, text, "definition net_sales: ")

	for trace, first := range map[string]string{overHTTP: "sutura.http ask_metric", overMCP: "sutura.mcp ask_metric"} {
		spans := rcv.Wait(trace, 4, 30*time.Second)
		var names []string
		for _, sp := range spans {
			names = append(names, sp.Name)
			assert.Equal(t, "sutura", sp.Service)
		}
		assert.Subset(t, names, []string{first, "sutura.pipeline", "sutura.leg", "sutura.data_system demo"}, "the spans of trace %s", trace)
		i := slices.IndexFunc(spans, func(sp otlptest.Span) bool { return sp.Name == first })
		if assert.GreaterOrEqual(t, i, 0) && trace == overHTTP {
			assert.Equal(t, "00f067aa0ba902b7", spans[i].ParentSpanID, "the caller's span is the parent of the call's")
		}
	}
	assert.Contains(t, s.stderr.String(), `"trace_id":"`+overHTTP+`"`, "the audit record carries the trace id")
	assert.NotContains(t, s.stderr.String(), "ZZcanary")
}

// TestPostgresSeesTheTraceparent serves the demo from a real PostgreSQL
// and holds a lock on the table a question reads, so that the question's
// first statement waits in pg_stat_activity: the database shows it ending
// with a traceparent comment of the caller's trace — the estimate's
// EXPLAIN of the statement the explanation names, or, where no estimate
// is made, exactly that statement.
func TestPostgresSeesTheTraceparent(t *testing.T) {
	b, err := mdcatalog.Load(demo.Catalog(), demo.Version)
	require.NoError(t, err)
	d := pgtest.New(t)
	d.Load(t, demo.Data(), b.Definitions().Models)
	pc := d.Config(demo.SourceAlias, nil)
	dir := demoConfig(t, "pg-1", fmt.Sprintf("{kind: postgres, posture: shared-service-user, host: %s, port: %d, database: %s, user: %s, password_file: pgpass, transport_mode: plaintext}",
		pc.Host, pc.Port, pc.Database, pc.User), "", map[string][]byte{"pgpass": pc.Password})
	s := serve(t, "SUTURA_CONFIG_DIR="+dir)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	connect := func() *pgx.Conn {
		c, err := pgx.Connect(ctx, fmt.Sprintf("host=%s port=%d dbname=%s user=%s password=%s sslmode=disable", pc.Host, pc.Port, pc.Database, pc.User, pc.Password))
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close(context.Background()) })
		return c
	}
	locker, watcher := connect(), connect()
	m, ok := b.Metric("net_sales")
	require.True(t, ok)
	model, ok := b.Model(m.Model)
	require.True(t, ok)
	tx, err := locker.Begin(ctx)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, "LOCK TABLE "+pgx.Identifier(strings.Split(model.Table, ".")).Sanitize()+" IN ACCESS EXCLUSIVE MODE")
	require.NoError(t, err)

	const trace = "5bf92f3577b34da6a3ce929d0e0e4737"
	type reply struct {
		status int
		body   string
	}
	done := make(chan reply, 1)
	go func() {
		status, _, body := s.do(t, "POST", "/v1/query", year2025, "traceparent", traceparentOf(trace))
		done <- reply{status, body}
	}()
	// The first statement of the trace the database holds: the estimate
	// (docs/contract.md §15, EXPLAIN with the pipeline's traceparent) or,
	// where none is made, the question's own statement.
	var seen string
	for seen == "" {
		err := watcher.QueryRow(ctx, "SELECT query FROM pg_stat_activity WHERE query LIKE '%traceparent=''00-"+trace+"-%' AND pid <> pg_backend_pid()").Scan(&seen)
		if err != nil {
			require.ErrorIs(t, err, pgx.ErrNoRows)
			time.Sleep(20 * time.Millisecond)
		}
	}
	require.NoError(t, tx.Rollback(ctx))
	r := <-done
	require.Equal(t, 200, r.status, r.body)
	assert.Regexp(t, regexp.MustCompile(` /\* traceparent='00-`+trace+`-[0-9a-f]{16}-0[01]' \*/$`), seen, "the database's own view ends with the comment")
	e := decodeExplained(t, r.body)
	assert.Equal(t, trace, e.Explanation.TraceID)
	require.Len(t, e.Explanation.Statements, 1, "the single-user operator reads the statements")
	st := e.Explanation.Statements[0]
	if strings.HasPrefix(seen, "EXPLAIN") {
		assert.True(t, strings.HasPrefix(strings.TrimPrefix(seen, "EXPLAIN (FORMAT JSON) "), st.Text[:strings.LastIndex(st.Text, " /* ")]),
			"the estimate explains the statement the explanation names")
	} else {
		assert.Equal(t, seen, st.Text, "the explanation names exactly the statement the database ran")
	}
	assert.Equal(t, "postgres", st.Dialect)
	require.Len(t, e.Explanation.Legs, 1)
	assert.Equal(t, pc.User, e.Explanation.Legs[0].Identity)
	assert.Empty(t, e.Explanation.Legs[0].Cache, "a database has no cache state")
	require.Len(t, e.Explanation.DataThrough, 1, "PostgreSQL tells data_through with one max() per model at start")
	assert.Equal(t, "demo", e.Explanation.DataThrough[0].Source)
	assert.Regexp(t, `^\d{4}-\d{2}-\d{2}$`, e.Explanation.DataThrough[0].Through)
}

// TestClickHouseLogsTheTraceparent serves the demo from a real ClickHouse:
// the statement of a question with a traceparent ends with the call's
// traceparent comment, and the server's own system.query_log links back to
// the trace by the statement's query_id (sutura-<trace id>-…), which every
// version logs; ClickHouse cuts its query column at the end of the
// statement, so a trailing comment shows there only where the server keeps
// it.
func TestClickHouseLogsTheTraceparent(t *testing.T) {
	b, err := mdcatalog.Load(demo.Catalog(), demo.Version)
	require.NoError(t, err)
	d := chtest.New(t)
	d.Load(t, demo.Data(), b.Definitions().Models)
	cc := d.Config(demo.SourceAlias, nil)
	dir := demoConfig(t, "ch-1", fmt.Sprintf("{kind: clickhouse, posture: shared-service-user, host: %s, port: %d, database: %s, user: %s, password_file: chpass, transport_mode: plaintext}",
		cc.Host, cc.Port, cc.Database, cc.User), "", map[string][]byte{"chpass": cc.Password})
	s := serve(t, "SUTURA_CONFIG_DIR="+dir)

	const trace = "6bf92f3577b34da6a3ce929d0e0e4738"
	status, _, body := s.do(t, "POST", "/v1/query", year2025, "traceparent", traceparentOf(trace))
	require.Equal(t, 200, status, body)
	e := decodeExplained(t, body)
	assert.Equal(t, trace, e.Explanation.TraceID)
	require.Len(t, e.Explanation.Statements, 1)
	st := e.Explanation.Statements[0]
	assert.Equal(t, "clickhouse", st.Dialect)
	assert.Regexp(t, ` /\* traceparent='00-`+trace+`-[0-9a-f]{16}-0[01]' \*/$`, st.Text)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var id, logged string
	for id == "" && ctx.Err() == nil {
		d.Exec(t, "SYSTEM FLUSH LOGS")
		err := d.Admin.QueryRow(ctx, "SELECT query_id, query FROM system.query_log WHERE startsWith(query_id, ?) LIMIT 1",
			"sutura-"+trace+"-").Scan(&id, &logged)
		if err != nil {
			time.Sleep(100 * time.Millisecond)
		}
	}
	require.NotEmpty(t, id, "system.query_log links the statement to the trace by its query_id")
	assert.Contains(t, logged, "net_amount_cents", "the logged statement is the question's")
	if strings.Contains(logged, "traceparent") {
		comment := st.Text[strings.LastIndex(st.Text, " /* traceparent="):]
		assert.True(t, strings.HasSuffix(logged, comment), logged)
	} else {
		t.Logf("ClickHouse %s logs the statement without its trailing comment; the query_id carries the trace", d.Version(t))
	}
}

// steadyOutcome is an outcome's wire body without what differs from one
// call of a question to the next (docs/contract.md §16): the call's trace
// id and each leg's measurements (elapsed time, what was scanned, and the
// cache state, which a first call warms).
func steadyOutcome(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(body, &m), string(body))
	if e, ok := m["explanation"].(map[string]any); ok {
		delete(e, "trace_id")
		legs, _ := e["legs"].([]any)
		for _, l := range legs {
			for _, k := range []string{"elapsed_ms", "rows_scanned", "bytes_scanned", "cache"} {
				delete(l.(map[string]any), k)
			}
		}
	}
	return m
}
