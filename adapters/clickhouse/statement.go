package clickhouse

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	ch "github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// Server is what the adapter knows of the server it talks to: its version,
// which decides how statements are written and what the source can do.
type Server struct {
	// Version is the server's version as it reports it (SELECT version()).
	Version string
	major   int
	minor   int
}

// parseServer reads a version such as "18.16.1" or "26.5.1.1".
func parseServer(v string) (*Server, error) {
	parts := strings.SplitN(strings.TrimSpace(v), ".", 3)
	if len(parts) < 2 {
		return nil, fmt.Errorf("the server reports version %q, which has no major and minor number", v)
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("the server reports version %q, which has no major and minor number", v)
	}
	return &Server{Version: strings.TrimSpace(v), major: major, minor: minor}, nil
}

func (s *Server) atLeast(major, minor int) bool {
	return s.major > major || s.major == major && s.minor >= minor
}

// QueryParameters reports whether the server binds typed query parameters
// ({p1:Date}) sent over the native protocol: ClickHouse 22.8 and later.
// Otherwise the driver binds each value into the statement, escaped
// (semantic.RenderClickHouseLegacy).
func (s *Server) QueryParameters() bool { return s.atLeast(22, 8) }

// ExecuteAs reports whether the server has EXECUTE AS, which
// impersonation-at-source needs: ClickHouse 25.11 and later.
func (s *Server) ExecuteAs() bool { return s.atLeast(25, 11) }

// sessionTimezone reports whether the server has the session_timezone
// setting (ClickHouse 23.6 and later).
func (s *Server) sessionTimezone() bool { return s.atLeast(23, 6) }

// MultipleJoins reports whether the server runs a statement with more than
// one JOIN: ClickHouse 20.1 and later (19.x had it only behind an
// experimental setting, 18.x not at all). On an older server such a
// question fails with the server's code 48.
func (s *Server) MultipleJoins() bool { return s.atLeast(20, 1) }

// Server returns the server's version, asking the server on the first call
// (and again after Ping or a broken connection).
func (db *DB) Server(ctx context.Context) (*Server, error) {
	if s := db.srv.Load(); s != nil {
		return s, nil
	}
	ctx, cancel := sqlsource.Budget(ctx, db.cfg.DefaultTimeout)
	defer cancel()
	st := statement{sql: "SELECT version()"}
	var version string
	_, err := db.run(ctx, st, func(rows driver.Rows) error {
		if !rows.Next() {
			return fmt.Errorf("SELECT version() returned no row: %w", rows.Err())
		}
		return rows.Scan(&version)
	})
	if err != nil {
		return nil, err
	}
	s, err := parseServer(version)
	if err != nil {
		return nil, unexplained(db.cfg.Source, err)
	}
	db.srv.Store(s)
	return s, nil
}

// statement is SQL with the arguments the driver binds.
type statement struct {
	sql  string
	args []any
	user string // the EXECUTE AS user; "" is the service user
}

// render writes plan's statement for srv, run as user ("" for the service
// user): semantic's clickhouse dialect with its values as typed query
// parameters where the server has them, and the legacy rendering whose ?
// placeholders the driver binds otherwise. Nothing of a value is ever
// written into the SQL by this package.
func render(plan *domain.Plan, srv *Server, user string) (statement, error) {
	st, err := renderAs(plan, srv, user)
	if err != nil {
		return statement{}, err
	}
	args := make([]any, len(st.Params))
	for i, p := range st.Params {
		if p.Kind != semantic.ParamDate && p.Kind != semantic.ParamText {
			return statement{}, fmt.Errorf("parameter %d has an unknown kind", i+1)
		}
		if srv.QueryParameters() {
			// The driver escapes the text as the server's parameter parser
			// reads it; the placeholder's type ({p1:Date}) does the typing.
			args[i] = ch.Named(p.BindName(), p.Value)
		} else {
			args[i] = p.Value
		}
	}
	return statement{sql: st.SQL, args: args, user: user}, nil
}

// renderAs is the text and parameters of plan's statement for srv, run
// as user: prefixed with EXECUTE AS <user> unless user is "".
func renderAs(plan *domain.Plan, srv *Server, user string) (semantic.Statement, error) {
	var st semantic.Statement
	var err error
	if srv.QueryParameters() {
		st, err = semantic.Render(plan, semantic.ClickHouse)
	} else {
		st, err = semantic.RenderClickHouseLegacy(plan)
	}
	if err != nil {
		return semantic.Statement{}, err
	}
	if user != "" {
		if !srv.ExecuteAs() {
			return semantic.Statement{}, errNoExecuteAs
		}
		// The user comes from configuration, never from a caller, and a
		// user name cannot be a parameter: it is written as a quoted
		// identifier.
		st.SQL = "EXECUTE AS " + quoteIdent(user) + " " + st.SQL
	}
	return st, nil
}

var errNoExecuteAs = fmt.Errorf("the server has no EXECUTE AS (ClickHouse 25.11 and later), which impersonation-at-source needs")

// bound is a statement of the adapter's own with text values: sql writes
// each as {vN:String}, a typed query parameter where the server has them;
// otherwise each becomes a ? the driver binds.
func bound(srv *Server, sql string, values ...string) statement {
	args := make([]any, len(values))
	for i, v := range values {
		ph := "{v" + strconv.Itoa(i+1) + ":String}"
		if srv.QueryParameters() {
			args[i] = ch.Named("v"+strconv.Itoa(i+1), v)
		} else {
			sql = strings.Replace(sql, ph, "?", 1)
			args[i] = v
		}
	}
	return statement{sql: sql, args: args}
}

// queryWords are the first words of the statements run_sql runs.
var queryWords = map[string]bool{"select": true, "with": true, "show": true, "describe": true, "desc": true, "exists": true}

// isQuery reports whether sql's first word, after white space, comments
// and opening parentheses, is one of queryWords. A block comment that
// opens another inside it is refused: servers differ on whether they
// nest, so what follows it is not certain. A `#` comment, which only
// newer servers read as one, is refused the same way.
func isQuery(sql string) bool {
	s := sql
	for {
		s = strings.TrimLeft(s, " \t\n\r\f\v(")
		switch {
		case strings.HasPrefix(s, "--"):
			end := strings.IndexAny(s, "\n\r")
			if end < 0 {
				return false
			}
			s = s[end:]
		case strings.HasPrefix(s, "/*"):
			end := strings.Index(s[2:], "*/")
			if end < 0 || strings.Contains(s[2:2+end], "/*") {
				return false
			}
			s = s[2+end+2:]
		default:
			n := 0
			for n < len(s) && (s[n]|0x20 >= 'a' && s[n]|0x20 <= 'z' || s[n] == '_') {
				n++
			}
			return queryWords[strings.ToLower(s[:n])] && (n == len(s) || !isWordByte(s[n]))
		}
	}
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z' || c >= 0x80
}
