// Package bqtest is a test double of BigQuery's REST API: an
// httptest.Server that answers the calls the client library
// (cloud.google.com/go/bigquery) makes for a query job — jobs.insert
// (including dry runs), jobs.getQueryResults with maxResults and
// pageToken paging, jobs.get, jobs.cancel, jobs.query and tables.get — with the
// JSON shapes BigQuery documents, and BigQuery's error bodies.
//
// It is a double, not an emulator: it never parses or evaluates SQL. A
// test gives it canned answers, each matched by a substring of the
// statement, and reads back what the client sent (the statement, its
// parameters, maximumBytesBilled, jobTimeoutMs, the location, the pages it
// asked for, the jobs it cancelled). What it proves is that the adapter
// drives the real client library as BigQuery's API expects and maps what
// comes back; whether BigQuery runs the dialect's SQL as intended is the
// bigquery tier's to show, against the live service (docs/operations.md).
package bqtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	bqapi "google.golang.org/api/bigquery/v2"
	"google.golang.org/api/option"
)

// Field is one column of a canned result or table: its name and
// BigQuery type (INTEGER, NUMERIC, BIGNUMERIC, FLOAT, BOOLEAN, STRING,
// DATE, TIMESTAMP, DATETIME).
type Field struct {
	Name, Type string
	// Precision and Scale of a parameterized NUMERIC; Repeated for an
	// array column.
	Precision, Scale int64
	Repeated         bool
}

// APIError is an error body BigQuery returns: the HTTP status, the
// reason (invalidQuery, accessDenied, quotaExceeded,
// bytesBilledLimitExceeded ...) and the message.
type APIError struct {
	Status          int
	Reason, Message string
}

// Answer is the canned answer to every job whose statement contains
// Match (the first matching answer wins; "" matches every statement).
type Answer struct {
	Match string
	// Schema and Rows are the result; a cell is the API's text of the
	// value (TIMESTAMP as microseconds since the epoch, as the library
	// asks for) or nil for NULL.
	Schema []Field
	Rows   [][]any
	// InsertError fails jobs.insert; Error fails the job (returned by
	// jobs.getQueryResults once the job is complete).
	InsertError, Error *APIError
	// Hold keeps the job running (jobComplete false) until it is
	// cancelled.
	Hold bool
	// InsertDelay holds jobs.insert this long before it answers (the job
	// exists from the start), as a slow API would.
	InsertDelay time.Duration
	// StatementType is what a dry run reports ("SELECT" when empty);
	// BytesProcessed is the job's totalBytesProcessed, in a dry run's
	// answer and in jobs.get once the job is done.
	StatementType  string
	BytesProcessed int64
}

// Job is what the client sent for one jobs.insert.
type Job struct {
	ID, Location, Query string
	DryRun              bool
	MaximumBytesBilled  int64
	JobTimeoutMs        int64
	DefaultDataset      string
	// Params are the named parameters: name → "TYPE value".
	Params map[string]string
}

// Server is the double. Its methods are safe for concurrent use.
type Server struct {
	srv *httptest.Server
	// TableLocation is the location tables.get says a table is in; empty
	// leaves it out. Set it before the first call.
	TableLocation string
	// PageLimit, when positive, is the most rows one page holds whatever
	// maxResults asks (BigQuery bounds a page by its size in bytes), so
	// that a result comes in several pages. Set it before the first call.
	PageLimit int

	mu        sync.Mutex
	answers   []Answer
	tables    map[string][]Field
	jobs      []Job
	byID      map[string]*state
	cancelled []string
	pages     []int64
	rowsSent  int
}

// state is one inserted job.
type state struct {
	answer    Answer
	cancelled bool
}

// Start starts a double, closed when t ends.
func Start(t testing.TB) *Server {
	s := &Server{tables: map[string][]Field{}, byID: map[string]*state{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// Close stops the double: calls fail as a network would.
func (s *Server) Close() { s.srv.Close() }

// Endpoint is the API endpoint to configure (Config.Endpoint).
func (s *Server) Endpoint() string { return s.srv.URL + "/bigquery/v2/" }

// ClientOptions point the client library at the double, without
// authentication.
func (s *Server) ClientOptions() []option.ClientOption {
	return []option.ClientOption{option.WithEndpoint(s.Endpoint()), option.WithoutAuthentication()}
}

// Answer adds a canned answer after the ones already given.
func (s *Server) Answer(a Answer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answers = append(s.answers, a)
}

// Table gives tables.get the schema of project.dataset.table.
func (s *Server) Table(path string, fields ...Field) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tables[path] = fields
}

// Jobs returns the jobs inserted so far, in order.
func (s *Server) Jobs() []Job {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Job(nil), s.jobs...)
}

// Cancelled returns the ids of the jobs jobs.cancel was called for.
func (s *Server) Cancelled() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.cancelled...)
}

// Pages returns the maxResults of every page of rows asked for (a call
// with maxResults 0 only waits for the job and is not counted).
func (s *Server) Pages() []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int64(nil), s.pages...)
}

// RowsSent returns how many rows the double has sent in all.
func (s *Server) RowsSent() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rowsSent
}

// serve routes a call by its path below /bigquery/v2/.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.Path, "/bigquery/v2/")
	p := strings.Split(path, "/")
	switch {
	case len(p) == 3 && p[0] == "projects" && p[2] == "jobs" && r.Method == http.MethodPost:
		s.insert(w, r, p[1])
	case len(p) == 3 && p[0] == "projects" && p[2] == "queries" && r.Method == http.MethodPost:
		s.query(w, r, p[1])
	case len(p) == 4 && p[0] == "projects" && p[2] == "queries" && r.Method == http.MethodGet:
		s.results(w, r, p[3])
	case len(p) == 4 && p[0] == "projects" && p[2] == "jobs" && r.Method == http.MethodGet:
		s.get(w, p[1], p[3])
	case len(p) == 5 && p[0] == "projects" && p[2] == "jobs" && p[4] == "cancel" && r.Method == http.MethodPost:
		s.cancel(w, p[1], p[3])
	case len(p) == 6 && p[0] == "projects" && p[2] == "datasets" && p[4] == "tables" && r.Method == http.MethodGet:
		s.table(w, p[1]+"."+p[3]+"."+p[5])
	default:
		writeError(w, &APIError{Status: 404, Reason: "notFound", Message: "the double has no route for " + r.Method + " " + r.URL.Path})
	}
}

func (s *Server) match(query string) Answer {
	for _, a := range s.answers {
		if strings.Contains(query, a.Match) {
			return a
		}
	}
	return Answer{Error: &APIError{Status: 400, Reason: "invalidQuery", Message: "the double has no answer for this statement"}}
}

// record decodes what the client sent for one job.
func record(id, location string, cfg *bqapi.JobConfiguration) Job {
	j := Job{ID: id, Location: location, Params: map[string]string{}}
	if cfg != nil {
		j.DryRun, j.JobTimeoutMs = cfg.DryRun, cfg.JobTimeoutMs
		if q := cfg.Query; q != nil {
			j.Query, j.MaximumBytesBilled = q.Query, q.MaximumBytesBilled
			if q.DefaultDataset != nil {
				j.DefaultDataset = q.DefaultDataset.ProjectId + "." + q.DefaultDataset.DatasetId
			}
			for _, qp := range q.QueryParameters {
				v := ""
				if qp.ParameterValue != nil {
					v = qp.ParameterValue.Value
				}
				t := ""
				if qp.ParameterType != nil {
					t = qp.ParameterType.Type
				}
				j.Params[qp.Name] = t + " " + v
			}
		}
	}
	return j
}

func (s *Server) insert(w http.ResponseWriter, r *http.Request, project string) {
	var in bqapi.Job
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeError(w, &APIError{Status: 400, Reason: "invalid", Message: "the body is not a job"})
		return
	}
	ref := in.JobReference
	if ref == nil {
		ref = &bqapi.JobReference{ProjectId: project, JobId: fmt.Sprintf("double-%d", time.Now().UnixNano())}
	}
	j := record(ref.JobId, ref.Location, in.Configuration)
	s.mu.Lock()
	s.jobs = append(s.jobs, j)
	a := s.match(j.Query)
	if a.InsertError == nil && !j.DryRun {
		s.byID[ref.JobId] = &state{answer: a}
	}
	s.mu.Unlock()
	if a.InsertDelay > 0 {
		select {
		case <-time.After(a.InsertDelay):
		case <-r.Context().Done():
			return
		}
	}
	if a.InsertError != nil {
		writeError(w, a.InsertError)
		return
	}
	if j.DryRun && a.Error != nil {
		// A dry run fails as the job would: at once.
		writeError(w, a.Error)
		return
	}
	st := "RUNNING"
	if j.DryRun {
		st = "DONE"
	}
	typ := a.StatementType
	if typ == "" {
		typ = "SELECT"
	}
	out := &bqapi.Job{
		Id:            project + ":" + ref.Location + "." + ref.JobId,
		JobReference:  ref,
		Configuration: in.Configuration,
		Status:        &bqapi.JobStatus{State: st},
		Statistics:    &bqapi.JobStatistics{Query: &bqapi.JobStatistics2{StatementType: typ}},
	}
	if j.DryRun {
		// A running job's statistics say nothing processed yet; a dry
		// run's say what the job would process.
		out.Statistics.TotalBytesProcessed = a.BytesProcessed
		out.Statistics.Query.TotalBytesProcessed = a.BytesProcessed
	}
	writeJSON(w, out)
}

// query answers jobs.query: the client's fast path, which the adapter's
// jobs (they carry a timeout) do not take, answered as jobs.insert
// followed by a first page.
func (s *Server) query(w http.ResponseWriter, r *http.Request, project string) {
	var in bqapi.QueryRequest
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeError(w, &APIError{Status: 400, Reason: "invalid", Message: "the body is not a query request"})
		return
	}
	id := fmt.Sprintf("double-q-%d", time.Now().UnixNano())
	s.mu.Lock()
	s.jobs = append(s.jobs, record(id, in.Location, &bqapi.JobConfiguration{DryRun: in.DryRun,
		Query: &bqapi.JobConfigurationQuery{Query: in.Query, QueryParameters: in.QueryParameters, MaximumBytesBilled: in.MaximumBytesBilled}}))
	a := s.match(in.Query)
	s.byID[id] = &state{answer: a}
	s.mu.Unlock()
	if a.InsertError != nil || a.Error != nil {
		e := a.InsertError
		if e == nil {
			e = a.Error
		}
		writeError(w, e)
		return
	}
	writeJSON(w, &bqapi.QueryResponse{JobReference: &bqapi.JobReference{ProjectId: project, JobId: id, Location: in.Location},
		JobComplete: false})
}

func (s *Server) results(w http.ResponseWriter, r *http.Request, id string) {
	q := r.URL.Query()
	s.mu.Lock()
	st, ok := s.byID[id]
	s.mu.Unlock()
	if !ok {
		writeError(w, &APIError{Status: 404, Reason: "notFound", Message: "Not found: Job " + id})
		return
	}
	s.mu.Lock()
	cancelled := st.cancelled
	s.mu.Unlock()
	a := st.answer
	switch {
	case cancelled:
		writeError(w, &APIError{Status: 400, Reason: "stopped", Message: "Job execution was cancelled: User requested cancellation"})
		return
	case a.Hold:
		// BigQuery answers jobComplete false after waiting a little.
		time.Sleep(20 * time.Millisecond)
		writeJSON(w, &bqapi.GetQueryResultsResponse{JobComplete: false, JobReference: &bqapi.JobReference{JobId: id}})
		return
	case a.Error != nil:
		writeError(w, a.Error)
		return
	}
	max, _ := strconv.ParseInt(q.Get("maxResults"), 10, 64)
	from, _ := strconv.Atoi(q.Get("pageToken"))
	if t := q.Get("startIndex"); q.Get("pageToken") == "" && t != "" {
		from, _ = strconv.Atoi(t)
	}
	out := &bqapi.GetQueryResultsResponse{JobComplete: true, Schema: schema(a.Schema),
		TotalRows: uint64(len(a.Rows)), JobReference: &bqapi.JobReference{JobId: id}}
	if q.Has("maxResults") && max == 0 {
		writeJSON(w, out)
		return
	}
	to := len(a.Rows)
	if max > 0 && from+int(max) < to {
		to = from + int(max)
	}
	if s.PageLimit > 0 && from+s.PageLimit < to {
		to = from + s.PageLimit
	}
	from = min(from, to)
	for _, row := range a.Rows[from:to] {
		tr := &bqapi.TableRow{}
		for _, v := range row {
			tr.F = append(tr.F, &bqapi.TableCell{V: v})
		}
		out.Rows = append(out.Rows, tr)
	}
	if to < len(a.Rows) {
		out.PageToken = strconv.Itoa(to)
	}
	s.mu.Lock()
	s.pages = append(s.pages, max)
	s.rowsSent += to - from
	s.mu.Unlock()
	writeJSON(w, out)
}

// get answers jobs.get: a job the double knows is done, with the bytes
// its answer says it processed, unless it is held and not cancelled.
func (s *Server) get(w http.ResponseWriter, project, id string) {
	s.mu.Lock()
	st, ok := s.byID[id]
	state := "DONE"
	if ok && st.answer.Hold && !st.cancelled {
		state = "RUNNING"
	}
	var loc string
	for _, j := range s.jobs {
		if j.ID == id {
			loc = j.Location
		}
	}
	s.mu.Unlock()
	if !ok {
		writeError(w, &APIError{Status: 404, Reason: "notFound", Message: "Not found: Job " + project + ":" + id})
		return
	}
	writeJSON(w, &bqapi.Job{JobReference: &bqapi.JobReference{ProjectId: project, JobId: id, Location: loc},
		Configuration: &bqapi.JobConfiguration{Query: &bqapi.JobConfigurationQuery{Query: st.answer.Match}},
		Status:        &bqapi.JobStatus{State: state},
		Statistics: &bqapi.JobStatistics{TotalBytesProcessed: st.answer.BytesProcessed,
			Query: &bqapi.JobStatistics2{TotalBytesProcessed: st.answer.BytesProcessed}}})
}

func (s *Server) cancel(w http.ResponseWriter, project, id string) {
	s.mu.Lock()
	s.cancelled = append(s.cancelled, id)
	if st, ok := s.byID[id]; ok {
		st.cancelled = true
	}
	s.mu.Unlock()
	writeJSON(w, &bqapi.JobCancelResponse{Kind: "bigquery#jobCancelResponse",
		Job: &bqapi.Job{JobReference: &bqapi.JobReference{ProjectId: project, JobId: id}, Status: &bqapi.JobStatus{State: "DONE"}}})
}

func (s *Server) table(w http.ResponseWriter, path string) {
	s.mu.Lock()
	fields, ok := s.tables[path]
	s.mu.Unlock()
	if !ok {
		writeError(w, &APIError{Status: 404, Reason: "notFound", Message: "Not found: Table " + path})
		return
	}
	p := strings.Split(path, ".")
	writeJSON(w, &bqapi.Table{Type: "TABLE", Schema: schema(fields), Location: s.TableLocation,
		TableReference: &bqapi.TableReference{ProjectId: p[0], DatasetId: p[1], TableId: p[2]}})
}

func schema(fields []Field) *bqapi.TableSchema {
	out := &bqapi.TableSchema{}
	for _, f := range fields {
		mode := "NULLABLE"
		if f.Repeated {
			mode = "REPEATED"
		}
		out.Fields = append(out.Fields, &bqapi.TableFieldSchema{Name: f.Name, Type: f.Type, Mode: mode,
			Precision: f.Precision, Scale: f.Scale})
	}
	return out
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_ = json.NewEncoder(w).Encode(v)
}

// writeError writes BigQuery's error body for e.
func writeError(w http.ResponseWriter, e *APIError) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(e.Status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"code": e.Status, "message": e.Message,
		"errors": []map[string]string{{"reason": e.Reason, "message": e.Message, "domain": "global"}},
	}})
}
