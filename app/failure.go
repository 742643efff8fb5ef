package app

import (
	"context"
	"errors"
	"strings"

	"sutura.dev/domain"
)

// FailureCode is the stable code of a failure: a call that ended without
// an outcome (docs/contract.md §5). It is the code of the audit record, of the
// HTTP failure body and of the in-process error, and the MCP tool error
// carries its sentence, so that every transport reports the same event
// with the same code. Codes are part of the contract.
type FailureCode string

// Every failure code, in the order of the table below.
const (
	CodeUnauthorized      FailureCode = "unauthorized"
	CodeInsufficientScope FailureCode = "insufficient_scope"
	CodeToolNotEnabled    FailureCode = "tool_not_enabled"
	CodeHostNotAllowed    FailureCode = "host_not_allowed"
	CodeNotAQuestion      FailureCode = "not_a_question"
	CodeTooLarge          FailureCode = "too_large"
	// CodeUnsupportedMediaType: a POST that does not declare
	// application/json, refused before its body is read.
	CodeUnsupportedMediaType FailureCode = "unsupported_media_type"
	CodeRateLimited          FailureCode = "rate_limited"
	CodeTimeout              FailureCode = "timeout"
	CodeInternal             FailureCode = "internal"
	CodeUnavailable          FailureCode = "unavailable"
	CodeIdentityUnavailable  FailureCode = "identity_unavailable"
	CodeAtCapacity           FailureCode = "at_capacity"
	// CodeZeroDenominator: a ratio metric declared zero_denominator: fails
	// met a zero denominator; the answer does not exist for this question.
	CodeZeroDenominator FailureCode = "zero_denominator"
	// CodeStatementFailed: the database failed a run_sql statement itself
	// (its syntax, a table or column it names); its author may fix it.
	CodeStatementFailed FailureCode = "statement_failed"
	// CodeNotFound and CodeMethodNotAllowed answer HTTP requests outside
	// the route table.
	CodeNotFound         FailureCode = "not_found"
	CodeMethodNotAllowed FailureCode = "method_not_allowed"
	// CodeCancelled: the caller went away. Nobody is told; the code exists
	// for the audit record of the work that was stopped.
	CodeCancelled FailureCode = "cancelled"
)

// The fixed sentences of the failures of a call (docs/contract.md §5). None
// carries a caller value or a data system's text.
const (
	TextAtCapacity      = "at capacity, ask again shortly"
	TextTimeout         = "the question ran out of time; it was stopped; ask for less"
	TextUnavailable     = "the data system is unavailable; the question was not answered; ask again later"
	TextInternal        = "the service failed to answer; this is not a problem with the question"
	TextStatementFailed = "the database failed the statement (its syntax, or a table, column or function it names); correct it and run it again"
	TextZeroDenominator = "a ratio's denominator is zero for this question and its metric is defined to fail then; ask for another range, grain or grouping"
)

// failureRow is one row of the one table of failures.
type failureRow struct {
	code FailureCode
	// status is the HTTP status; 0 means no response is written, because
	// nobody is waiting for one.
	status int
	// text is the fixed sentence. A failure that names what was wrong (a
	// field, a tool and its scope, a gate's reason) words its own detail
	// from declared names only; text is then the generic sentence.
	text string
	// report says whether the failure is worth an operator's log line: a
	// data system down, a defect. Capacity, time, a caller's mistake and
	// the definition of a ratio are not.
	report bool
	// sentinel is the error a failure of this code unwraps to, and what
	// classify looks for; nil for the failures of the HTTP gates, which
	// never come from an error of the pipeline.
	sentinel error
}

// failures is the one table of failure codes: code, HTTP status, fixed
// sentence, whether it is reported, and the sentinel error it stands for.
// The order is that of docs/contract.md §5, then the codes the surfaces add;
// classify tries the sentinels in this order.
var failures = []failureRow{
	{CodeUnauthorized, 401, "a bearer token is required, and this one is missing or not valid", false, nil},
	{CodeInsufficientScope, 403, "the caller's scopes do not grant this tool", false, ErrNotGranted},
	{CodeToolNotEnabled, 403, "the tool is not enabled on this deployment", false, ErrToolNotEnabled},
	{CodeHostNotAllowed, 403, "this Host is not served here", false, nil},
	{CodeNotAQuestion, 400, "the arguments are not a question", false, ErrNotAQuestion},
	{CodeTooLarge, 413, "the request body is larger than this server accepts", false, nil},
	{CodeUnsupportedMediaType, 415, "the body must be sent as Content-Type: application/json", false, nil},
	{CodeRateLimited, 429, "too many requests; ask again shortly", false, nil},
	{CodeTimeout, 408, TextTimeout, false, ErrTimeout},
	{CodeInternal, 500, TextInternal, true, ErrInternal},
	{CodeUnavailable, 503, TextUnavailable, true, ErrUnavailable},
	{CodeIdentityUnavailable, 503, "caller identity cannot be checked now; ask again later", true, nil},
	{CodeAtCapacity, 503, TextAtCapacity, false, ErrAtCapacity},
	{CodeZeroDenominator, 422, TextZeroDenominator, false, domain.ErrZeroDenominator},
	{CodeStatementFailed, 400, TextStatementFailed, false, ErrStatementFailed},
	{CodeNotFound, 404, "there is nothing at this path", false, nil},
	{CodeMethodNotAllowed, 405, "this path does not take this method", false, nil},
	{CodeCancelled, 0, "the caller went away; the work was stopped", false, context.Canceled},
}

func rowOf(c FailureCode) (failureRow, bool) {
	for _, r := range failures {
		if r.code == c {
			return r, true
		}
	}
	return failureRow{}, false
}

// FailureCodes returns every failure code, in the order of the table.
func FailureCodes() []FailureCode {
	out := make([]FailureCode, len(failures))
	for i, r := range failures {
		out[i] = r.code
	}
	return out
}

// Known reports whether c is a code of the table.
func (c FailureCode) Known() bool {
	_, ok := rowOf(c)
	return ok
}

// Status returns the HTTP status of c; 0 for an unknown code and for
// cancelled, which is never written.
func (c FailureCode) Status() int {
	r, _ := rowOf(c)
	return r.status
}

// Text returns the fixed sentence of c; "" for an unknown code.
func (c FailureCode) Text() string {
	r, _ := rowOf(c)
	return r.text
}

// Reported reports whether a failure of code c is worth an operator's log
// line.
func (c FailureCode) Reported() bool {
	r, _ := rowOf(c)
	return r.report
}

// Sentinel returns the error a failure of code c unwraps to (ErrTimeout
// for timeout, ...); nil for the failures of the HTTP gates and an
// unknown code.
func (c FailureCode) Sentinel() error {
	r, _ := rowOf(c)
	return r.sentinel
}

// Failure is a call that ended without an outcome: its code and the
// sentence the caller is told. A transport shows Code and Detail and
// nothing else: Error, for the operator, may hold a data system's text.
type Failure struct {
	Code FailureCode
	// Detail is the sentence for the caller: the code's fixed sentence, or
	// for not_a_question, tool_not_enabled and insufficient_scope one that
	// names the field, the tool or the scope, never a caller value.
	Detail string
	// Field is the path of the field at fault of not_a_question
	// ("range.start", "filters[0].value"); "" when the arguments as a whole
	// are.
	Field string

	cause error              // what failed; may hold a data system's text
	field *domain.FieldError // not_a_question's, which holds no caller value
	stack []byte             // a panic's stack, for the log
}

// newFailure is a failure of code with its fixed sentence, caused by
// cause (nil when the code says it all).
func newFailure(code FailureCode, cause error) *Failure {
	return &Failure{Code: code, Detail: code.Text(), cause: cause}
}

// Error is the sentence with its cause, for the operator's log and the
// command line; it is never shown to a caller of a transport.
func (f *Failure) Error() string {
	if f.cause == nil {
		return f.Detail
	}
	return f.Detail + ": " + f.cause.Error()
}

// Unwrap returns the sentinel of the code (ErrAtCapacity, ErrTimeout,
// ErrUnavailable, ErrInternal, ErrStatementFailed, ErrNotAQuestion,
// ErrToolNotEnabled, ErrNotGranted, domain.ErrZeroDenominator,
// context.Canceled) and the cause, so errors.Is and errors.As see both.
func (f *Failure) Unwrap() []error {
	var out []error
	if s := f.Code.Sentinel(); s != nil {
		out = append(out, s)
	}
	if f.field != nil {
		out = append(out, f.field)
	}
	if f.cause != nil {
		out = append(out, f.cause)
	}
	return out
}

// kinds maps each error kind of package domain to the code of a call
// that fails with it, after the sentinels of the table: the one place a
// data system's error becomes a code (docs/architecture.md §6).
var kinds = []struct {
	kind error
	code FailureCode
}{
	{domain.ErrDefect, CodeInternal},
	{domain.ErrZeroDenominator, CodeZeroDenominator},
	{domain.ErrUnavailable, CodeUnavailable},
	// A statement the data system rejected is statement_failed only when
	// the caller wrote it (run_sql, see classifyFor). The statement of a
	// certified question is sutura's: the data system no longer matches
	// the catalogue (a table or column dropped or renamed), which is not
	// the caller's to fix and which the operator is told of; the caller
	// can only ask again later, as of a data system that is down.
	{domain.ErrRejected, CodeUnavailable},
	// A decimal sum past 38 digits has no exact value: the engine refuses
	// to wrap it, as DuckDB and ClickHouse fail their own overflowing
	// SUM(DECIMAL) (which they report as a rejected statement). The
	// operator is told: the catalogue's column needs a wider type or the
	// metric another measure (docs/reference.md).
	{domain.ErrDecimalOverflow, CodeUnavailable},
}

// classify is the failure of an error of the pipeline: the first row of
// the table whose sentinel err wraps, else the code of the first error
// kind of package domain it wraps; a passed deadline is a timeout. An
// error wrapping none of them is internal: nobody recognised it, so it
// is a defect (an adapter that did not type its failure is one too),
// reported to the operator with its detail, and the caller is told
// nothing that could be wrong (unavailable would send them to ask again,
// and would hide the defect among outages).
func classify(err error) *Failure {
	return classifyFor("", err)
}

// classifyFor is classify for an error of capability tool's execution:
// the same table, and a statement the data system rejected is
// statement_failed for run_sql, whose caller wrote it.
func classifyFor(tool domain.Capability, err error) *Failure {
	var f *Failure
	if errors.As(err, &f) {
		return f
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return newFailure(CodeTimeout, err)
	}
	for _, r := range failures {
		if r.sentinel != nil && errors.Is(err, r.sentinel) {
			return newFailure(r.code, err)
		}
	}
	if tool == domain.RunSQL && errors.Is(err, domain.ErrRejected) {
		return newFailure(CodeStatementFailed, err)
	}
	for _, k := range kinds {
		if errors.Is(err, k.kind) {
			return newFailure(k.code, err)
		}
	}
	return newFailure(CodeInternal, err)
}

// CodeOf returns the code a call of capability tool that ended with err
// fails with, as the pipeline classifies it: what a contract suite
// compares a data system's error by.
func CodeOf(tool domain.Capability, err error) FailureCode {
	return classifyFor(tool, err).Code
}

// textNotAQuestionHead opens the sentence of arguments that are not a
// question.
const textNotAQuestionHead = "the arguments are not a question: "

// NotAQuestion is the sentence for arguments that are not a question: a
// *domain.FieldError names the field and never holds a caller value; any
// other error is replaced by a fixed sentence.
func NotAQuestion(err error) string {
	var fe *domain.FieldError
	if errors.As(err, &fe) {
		return textNotAQuestionHead + fe.Error()
	}
	return textNotAQuestionHead + "they could not be read"
}

// notAQuestion is the not_a_question failure of a parse error.
func notAQuestion(err error) *Failure {
	f := &Failure{Code: CodeNotAQuestion, Detail: NotAQuestion(err)}
	if errors.As(err, &f.field) {
		f.Field = f.field.Field
	}
	return f
}

// toolNotEnabled is the failure of a tool the deployment does not offer.
// The name is said only when it is a capability of the contract: a name
// is caller text too.
func toolNotEnabled(tool domain.Capability) *Failure {
	detail := "there is no such tool on this deployment"
	for _, c := range domain.Capabilities() {
		if c == tool {
			detail = "the tool " + string(tool) + " is not enabled on this deployment"
		}
	}
	return &Failure{Code: CodeToolNotEnabled, Detail: detail}
}

// notGranted is the failure of a tool the caller's scopes do not grant.
func notGranted(t Tool) *Failure {
	return &Failure{Code: CodeInsufficientScope,
		Detail: strings.Join([]string{"tool ", string(t.ID), " is not granted to this caller; the scope ", string(t.Scope), " grants it"}, "")}
}
