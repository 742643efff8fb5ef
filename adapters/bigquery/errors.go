package bigquery

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"strings"

	bq "cloud.google.com/go/bigquery"
	"google.golang.org/api/googleapi"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
)

// Error is a failure of BigQuery or of the connection to it (see
// sqlsource.Error). Its kind is domain.ErrUnavailable when the API could
// not be reached, refused the credentials or failed in a way it did not
// explain, and domain.ErrRejected when BigQuery failed the statement;
// Code is then BigQuery's error reason (invalidQuery, notFound). Its text
// is a fixed sentence naming the source and the reason; Message is
// BigQuery's message for a statement it failed (for run_sql's author
// only).
type Error = sqlsource.Error

// Refusal details. They name no value and no driver text.
const (
	detailAccess   = "BigQuery refused to read the data of this question for the service account of this source"
	detailQuota    = "BigQuery refused the job: the project's quota or rate limit is used up; ask again later"
	detailBilled   = "the question would bill more than the source's maximum_bytes_billed (%d bytes); ask for a shorter range or fewer dimensions"
	detailResponse = "the answer is larger than BigQuery returns for one job; ask for less"
	detailCompute  = "BigQuery ran out of resources for this question; ask for less"
	detailReadOnly = "run_sql on BigQuery runs exactly one SELECT (docs/operations.md, \"BigQuery and Oracle sources\"): BigQuery's dry run says this statement is a %s"
)

// errDivisionByZero is the statement's failure on a division by zero,
// which the caller turns into the plan's zero-denominator error.
var errDivisionByZero = errors.New("division by zero")

// apiError is what BigQuery said of a failure: the HTTP status (zero for
// a job's own error), its first reason and its message.
type apiError struct {
	status          int
	reason, message string
}

// apiErrorOf finds BigQuery's error in err: an error body of the REST API
// or a job's error result.
func apiErrorOf(err error) (apiError, bool) {
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		a := apiError{status: ge.Code, message: ge.Message}
		if len(ge.Errors) > 0 {
			a.reason = ge.Errors[0].Reason
			if a.message == "" {
				a.message = ge.Errors[0].Message
			}
		}
		return a, true
	}
	var je *bq.Error
	if errors.As(err, &je) {
		return apiError{reason: je.Reason, message: je.Message}, true
	}
	return apiError{}, false
}

// classify turns an error of a call into Execute's error.
func (db *DB) classify(ctx context.Context, err error) error {
	src := db.cfg.Source
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && retriedUnreachable(err) {
		// The client library retries a connection it cannot make until
		// the deadline: the API was not there, which is what to say.
		return &Error{System: "bigquery", Source: src, Kind: domain.ErrUnavailable,
			Sentence: "the BigQuery API cannot be reached", Err: err}
	}
	if out, ok := sqlsource.Settled(ctx, err); ok {
		return out
	}
	if a, ok := apiErrorOf(err); ok {
		return classifyAPI(src, db.cfg.MaximumBytesBilled, a, err)
	}
	if unreachable(err) {
		return &Error{System: "bigquery", Source: src, Kind: domain.ErrUnavailable,
			Sentence: "the BigQuery API cannot be reached", Err: err}
	}
	return &Error{System: "bigquery", Source: src, Kind: domain.ErrUnavailable, Sentence: "the job failed", Err: err}
}

func classifyAPI(src string, billed int64, a apiError, err error) error {
	switch a.reason {
	case "accessDenied":
		return sqlsource.Refusal(domain.SourceRefused, detailAccess)
	case "quotaExceeded", "rateLimitExceeded", "jobRateLimitExceeded":
		return sqlsource.Refusal(domain.SourceRefused, detailQuota)
	case "bytesBilledLimitExceeded":
		return sqlsource.Refusal(domain.ScanCeilingExceeded, detailBilled, billed)
	case "responseTooLarge":
		return sqlsource.Refusal(domain.ResultTooLarge, detailResponse)
	case "resourcesExceeded":
		return sqlsource.Refusal(domain.ResourcesExhausted, detailCompute)
	case "timeout":
		return sqlsource.Refusal(domain.DeadlineExceeded, sqlsource.DetailDeadline)
	case "invalidQuery", "invalid", "notFound", "duplicate":
		if strings.Contains(strings.ToLower(a.message), "division by zero") {
			return errDivisionByZero
		}
		return &Error{System: "bigquery", Source: src, Kind: domain.ErrRejected, Code: a.reason, Message: a.message,
			Sentence: "the statement failed (" + a.reason + ")", Err: err}
	}
	switch {
	case a.status == 401 || a.reason == "authError":
		return &Error{System: "bigquery", Source: src, Kind: domain.ErrUnavailable, Code: a.reason,
			Sentence: "BigQuery refused the credentials of the service account: check sources." + src + ".credentials_file", Err: err}
	case a.status == 403:
		return sqlsource.Refusal(domain.SourceRefused, detailAccess)
	case a.status == 400 || a.status == 404:
		return &Error{System: "bigquery", Source: src, Kind: domain.ErrRejected, Code: a.reason, Message: a.message,
			Sentence: "the statement failed (" + a.reason + ")", Err: err}
	}
	return &Error{System: "bigquery", Source: src, Kind: domain.ErrUnavailable, Code: a.reason,
		Sentence: "BigQuery failed the job (" + a.reason + ")", Err: err}
}

// retriedUnreachable reports whether err is the client library's retry
// ending at the deadline after a connection failure.
func retriedUnreachable(err error) bool {
	var urlErr *url.Error
	if err == nil || !errors.As(err, &urlErr) {
		return false
	}
	return !errors.Is(urlErr.Err, context.DeadlineExceeded) && !errors.Is(urlErr.Err, context.Canceled)
}

// unreachable reports whether err (not an API error) says the API could
// not be reached or the connection broke.
func unreachable(err error) bool {
	var netErr net.Error
	var urlErr *url.Error
	return errors.As(err, &netErr) || errors.As(err, &urlErr) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed)
}
