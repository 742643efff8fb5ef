package oracle

import (
	"context"
	"database/sql"
	"strings"

	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
)

// ErrEmptyStatement is RunSQL's error for a statement with no text.
var ErrEmptyStatement = sqlsource.ErrEmptyStatement

// RunSQL runs one statement of run_sql (docs/contract.md §6) and returns
// at most rowCap rows (domain.MaxRowCap when rowCap is not positive or
// larger), named after the result's fields, with no role and no
// provenance. It runs like a question: in a READ ONLY transaction under
// the deadline, as the service user or, under impersonation-at-source, as
// the verification identity (refused as credential_unavailable without
// one).
//
// The statement must be one query: its first word (after comments) must
// be SELECT or WITH, and a WITH that declares PL/SQL (WITH FUNCTION, WITH
// PROCEDURE) is refused, as is a statement with a second one after a
// semicolon; such a statement is source_refused and never sent. Oracle
// parses one statement per call, and the read-only transaction refuses a
// write (ORA-01456, source_refused). A function the statement calls could
// still write in an autonomous transaction: CheckSQLPrivileges refuses a
// service user whose privileges reach past the transaction. More rows
// than rowCap, or more than domain.MaxResultBytes of rendered cells, is
// result_too_large (the rows are fetched as they are read, so no more
// than rowCap+1 and go-ora's prefetch are fetched). Any other failure is
// an *Error whose Message is the server's, for the person who wrote the
// statement.
func (db *DB) RunSQL(ctx context.Context, statement string, rowCap int) (*domain.RowSet, error) {
	rowCap, err := sqlsource.Statement(statement, rowCap)
	if err != nil {
		return nil, err
	}
	// The text checked and run ends with the call's traceparent comment
	// (docs/contract.md §16).
	statement = sqlsource.Traced(ctx, statement)
	if reason := checkStatement(statement); reason != "" {
		return nil, sqlsource.Refusal(domain.SourceRefused, detailOneQuery, reason)
	}
	client, err := db.ids.Own()
	if err != nil {
		return nil, err
	}
	var rs *domain.RowSet
	err = db.run(ctx, client, func(ctx context.Context, tx *sql.Tx) error {
		qctx, stop := context.WithCancel(ctx)
		rows, err := tx.QueryContext(qctx, strings.TrimRight(strings.TrimSpace(statement), ";"))
		if err != nil {
			stop()
			return err
		}
		// Deferred calls run last first: a statement stopped by the row
		// cap is broken at the server before its rows are closed.
		defer rows.Close()
		defer stop()
		got, err := readRows(rows, nil, nil, rowCap, domain.MaxResultBytes, sqlsource.DetailStatementRows)
		rs = got
		return err
	})
	if err != nil {
		return nil, err
	}
	return rs, nil
}

// checkStatement is why statement is not one query run_sql runs, or "".
func checkStatement(statement string) string {
	words := tokens(statement, 3)
	if len(words) == 0 {
		return "the statement is only comments"
	}
	switch words[0] {
	case "SELECT":
	case "WITH":
		if len(words) > 1 && (words[1] == "FUNCTION" || words[1] == "PROCEDURE") {
			return "a WITH clause that declares PL/SQL is not a query"
		}
	default:
		return "its first word is " + words[0] + ", not SELECT or WITH"
	}
	if rest := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(withoutComments(statement)), ";")); !quotedSemicolonsOnly(rest) {
		return "it holds more than one statement"
	}
	return ""
}

// withoutComments is s with its -- and /* */ comments blanked, and its
// quoted literals and identifiers kept as they are.
func withoutComments(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\'' || s[i] == '"':
			q := s[i]
			j := i + 1
			for j < len(s) && s[j] != q {
				j++
			}
			b.WriteString(s[i:min(j+1, len(s))])
			i = j
		case strings.HasPrefix(s[i:], "--"):
			for i < len(s) && s[i] != '\n' {
				i++
			}
			b.WriteByte(' ')
		case strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return b.String()
			}
			i += end + 3
			b.WriteByte(' ')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// quotedSemicolonsOnly reports whether every semicolon of s is inside a
// quoted literal or identifier.
func quotedSemicolonsOnly(s string) bool {
	var q byte
	for i := 0; i < len(s); i++ {
		switch {
		case q != 0 && s[i] == q:
			q = 0
		case q == 0 && (s[i] == '\'' || s[i] == '"'):
			q = s[i]
		case q == 0 && s[i] == ';':
			return false
		}
	}
	return true
}

// tokens are the first n words of statement outside comments, upper-cased.
func tokens(statement string, n int) []string {
	f := strings.FieldsFunc(withoutComments(statement), func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	})
	if len(f) > n {
		f = f[:n]
	}
	for i := range f {
		f[i] = strings.ToUpper(f[i])
	}
	return f
}
