package postgres

import (
	"strings"
)

// queryKeywords are the statements run_sql runs: a query and nothing else.
var queryKeywords = map[string]bool{"select": true, "with": true, "values": true, "table": true}

// refusedFunctions are the functions run_sql never calls, by name, however
// they are qualified or quoted. A read-only transaction stops writes to
// tables, not these: they run SQL text of their own (so a query could hide
// a statement in a string), change the session's role or settings, end,
// cancel or signal other sessions (the certified questions of the same
// service user), administer the server, or reach its files.
var refusedFunctions = map[string]bool{
	// SQL text run as a query of its own.
	"query_to_xml": true, "query_to_xmlschema": true, "query_to_xml_and_xmlschema": true,
	"cursor_to_xml": true, "cursor_to_xmlschema": true, "ts_stat": true, "ts_rewrite": true,
	"dblink": true, "dblink_exec": true, "dblink_open": true, "dblink_fetch": true,
	"dblink_send_query": true, "dblink_connect": true, "dblink_connect_u": true,
	// The session's role and settings.
	"set_config": true,
	// Other sessions.
	"pg_terminate_backend": true, "pg_cancel_backend": true, "pg_log_backend_memory_contexts": true,
	// The server.
	"pg_reload_conf": true, "pg_rotate_logfile": true, "pg_promote": true, "pg_switch_wal": true,
	"pg_create_restore_point": true, "pg_backup_start": true, "pg_backup_stop": true,
	"pg_start_backup": true, "pg_stop_backup": true, "pg_wal_replay_pause": true, "pg_wal_replay_resume": true,
	"pg_stat_reset": true, "pg_stat_reset_shared": true, "pg_stat_reset_single_table_counters": true,
	"pg_stat_reset_single_function_counters": true, "pg_stat_reset_slru": true,
	"pg_stat_reset_replication_slot": true, "pg_stat_statements_reset": true,
	// Its files.
	"pg_read_file": true, "pg_read_binary_file": true, "pg_ls_dir": true, "pg_stat_file": true,
	"lo_import": true, "lo_export": true,
}

// checkStatement is the part of run_sql's rule read from the text of a
// statement before anything is sent: it calls none of refusedFunctions
// and names nothing with a Unicode escape (U&"…", which would spell a name
// this check cannot read). It reads the text as PostgreSQL's lexer does
// (nested block comments, line comments, quoted identifiers, standard,
// escape and dollar-quoted strings; backslashes escape in standard
// strings when conforming is false), and refuses what it cannot read. It
// returns a reason, "" when the statement may be parsed by the server,
// and whether the statement is a query: its first word SELECT, WITH,
// VALUES or TABLE, after any opening parentheses, with at most a final
// semicolon.
func checkStatement(sql string, conforming bool) (reason string, query bool) {
	toks, ok := lex(sql, conforming)
	if !ok {
		return "it cannot be read (an unterminated comment, string or quoted name, or a Unicode-escaped name)", false
	}
	query = true
	for j, tk := range toks {
		if tk.text == ";" && !tk.quoted && j != len(toks)-1 {
			query = false
		}
		if tk.ident && refusedFunctions[tk.text] {
			return "it calls " + tk.text + ", which run_sql refuses", false
		}
	}
	i := 0
	for i < len(toks) && toks[i].text == "(" && !toks[i].quoted {
		i++
	}
	if i == len(toks) || toks[i].quoted || !queryKeywords[toks[i].text] {
		query = false
	}
	return "", query
}

// notAQuery is the reason for a statement that is not one query.
const notAQuery = "it is not one SELECT, WITH, VALUES or TABLE statement"

// token is one word or punctuation mark of a statement; strings, numbers
// and comments are left out.
type token struct {
	text   string // an unquoted identifier in lower case; a quoted one as written
	ident  bool   // a name (quoted or not)
	quoted bool   // a quoted identifier
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 0x80 || (c|0x20) >= 'a' && (c|0x20) <= 'z'
}

func isIdentChar(c byte) bool { return isIdentStart(c) || c == '$' || c >= '0' && c <= '9' }

// lex splits sql into tokens as PostgreSQL's scanner does, as far as
// checkStatement needs; ok is false for what it cannot read.
func lex(sql string, conforming bool) (toks []token, ok bool) {
	s := sql
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case strings.HasPrefix(s[i:], "--"):
			for i < len(s) && s[i] != '\n' && s[i] != '\r' {
				i++
			}
		case strings.HasPrefix(s[i:], "/*"):
			depth := 0
			for {
				switch {
				case i >= len(s):
					return nil, false
				case strings.HasPrefix(s[i:], "/*"):
					depth++
					i += 2
				case strings.HasPrefix(s[i:], "*/"):
					depth--
					i += 2
				default:
					i++
				}
				if depth == 0 {
					break
				}
			}
		case c == '\'':
			n, ok := skipString(s[i:], !conforming)
			if !ok {
				return nil, false
			}
			i += n
		case c == '"':
			j := i + 1
			var b strings.Builder
			for {
				if j >= len(s) {
					return nil, false
				}
				if s[j] == '"' {
					if j+1 < len(s) && s[j+1] == '"' {
						b.WriteByte('"')
						j += 2
						continue
					}
					break
				}
				b.WriteByte(s[j])
				j++
			}
			toks = append(toks, token{text: strings.ToLower(b.String()), ident: true, quoted: true})
			i = j + 1
		case c == '$':
			j := i + 1
			if j < len(s) && s[j] >= '0' && s[j] <= '9' {
				for j < len(s) && s[j] >= '0' && s[j] <= '9' {
					j++
				}
				i = j
				continue
			}
			for j < len(s) && isIdentChar(s[j]) && s[j] != '$' {
				j++
			}
			if j >= len(s) || s[j] != '$' {
				return nil, false
			}
			tag := s[i : j+1]
			end := strings.Index(s[j+1:], tag)
			if end < 0 {
				return nil, false
			}
			i = j + 1 + end + len(tag)
		case isIdentStart(c):
			j := i
			for j < len(s) && isIdentChar(s[j]) {
				j++
			}
			word := strings.ToLower(s[i:j])
			switch {
			case j < len(s) && s[j] == '\'' && (word == "e" || word == "b" || word == "x" || word == "n"):
				n, ok := skipString(s[j:], word == "e" || !conforming && word == "n")
				if !ok {
					return nil, false
				}
				i = j + n
				continue
			case word == "u" && strings.HasPrefix(s[j:], "&\""):
				return nil, false
			case word == "u" && strings.HasPrefix(s[j:], "&'"):
				n, ok := skipString(s[j+1:], false)
				if !ok {
					return nil, false
				}
				i = j + 1 + n
				continue
			}
			toks = append(toks, token{text: word, ident: true})
			i = j
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			// Digits and points only: what follows (an exponent, a hex
			// digit, a name) is read as a name, which at worst refuses more.
			j := i
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
				j++
			}
			i = j
		default:
			toks = append(toks, token{text: string(c)})
			i++
		}
	}
	return toks, true
}

// skipString returns the length of the string literal s starts with (at
// its opening quote); backslash escapes when it is set. ok is false when
// the literal does not end.
func skipString(s string, backslash bool) (n int, ok bool) {
	for j := 1; j < len(s); j++ {
		switch {
		case backslash && s[j] == '\\':
			j++
		case s[j] == '\'':
			if j+1 < len(s) && s[j+1] == '\'' {
				j++
				continue
			}
			return j + 1, true
		}
	}
	return 0, false
}
