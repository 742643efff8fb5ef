package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"sutura.dev/cli/internal/config"
)

// Exit statuses of the contract (docs/contract.md §10).
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// streams are the process's standard streams, injected so tests can run
// commands in process.
type streams struct {
	in       io.Reader
	out, err io.Writer
}

// invocation is what a command runs with.
type invocation struct {
	ctx   context.Context
	args  []string // positional arguments after flag parsing
	io    streams
	env   config.Env
	flags *flag.FlagSet
}

// boolFlag returns the value of a boolean flag the command declared.
func (inv *invocation) boolFlag(name string) bool {
	f := inv.flags.Lookup(name)
	return f != nil && f.Value.String() == "true"
}

// command is one row of the command table, which drives both dispatch and
// help. flags, when set, declares the command's flags on fs.
type command struct {
	name    string
	args    string // synopsis of the positional arguments
	summary string
	minArgs int
	maxArgs int
	flags   func(fs *flag.FlagSet)
	run     func(inv *invocation) error
}

// usageError is a mistake in how the command was called: exit 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// commands is the one command table. Commands of later milestones join it
// as they land; none is listed before it works.
func commands() []*command {
	return []*command{
		{name: "catalog", summary: "list what the catalogue defines, with version and digest (--search WORDS: only the metrics the words find, best first)", flags: catalogFlags, run: runCatalog},
		{name: "describe", args: "<metric>", summary: "describe one metric", minArgs: 1, maxArgs: 1, flags: jsonFlag, run: runDescribe},
		{name: "query", args: "<question.yaml|json>", summary: "answer one question from a file, or from stdin with - (the wire shape, YAML or JSON)", minArgs: 1, maxArgs: 1, flags: queryFlags, run: runQuery},
		{name: "ask", args: "<metric>[,<metric>...]", summary: "answer one question given as flags: ask net_sales --by area --grain month --from 2026-01-01 --to 2026-04-01 --where area=East", minArgs: 1, maxArgs: 8, flags: askFlags, run: runAsk},
		{name: "compile", args: "<question.yaml|json> [dialect]", summary: "print the statement and its bound parameters, without a data system (- reads the question from stdin)", minArgs: 1, maxArgs: 2, flags: jsonFlag, run: runCompile},
		{name: "validate", summary: "load and pin the catalogue, open the sources, re-run every anchor and look for allowlisted values the data never holds; exit 1 naming each failure (--strict: an unused value too)", flags: validateFlags, run: runValidate},
		{name: "prompt", summary: "print the agent prompt rendered from the catalogue", run: runPrompt},
		{name: "serve", summary: "serve HTTP (/v1, MCP at /mcp, the catalogue browser at /ui/); first line: listening on http://HOST:PORT, then where each endpoint is", flags: serveFlags, run: runServe},
		{name: "mcp", summary: "serve MCP over standard input and output", run: runMCP},
		{name: "tools", summary: "print the tool declarations (the manifest) as JSON, without opening any data system", run: runTools},
		{name: "import", args: "dbt|cube|osi <in> <out>", summary: "convert another semantic layer's definitions into catalogue documents in <out>, with IMPORT-REPORT.md saying what was refused and why", minArgs: 3, maxArgs: 3, flags: importFlags, run: runImport},
		{name: "doctor", summary: "check the configuration, catalogue and sources, then how this binary was built (--verbose: every module compiled in)", flags: doctorFlags, run: runDoctor},
		{name: "version", summary: "print the version and the commit it was built from", run: runVersion},
		{name: "help", args: "[command]", summary: "show help for sutura or one command", maxArgs: 1},
	}
}

func jsonFlag(fs *flag.FlagSet) { fs.Bool("json", false, "print JSON instead of text") }

func validateFlags(fs *flag.FlagSet) {
	fs.Bool("strict", false, "fail (exit 1) when an allowlisted value never occurs in the data, instead of warning")
}

// run dispatches args to a command and returns the exit status.
func run(ctx context.Context, args []string, s streams, env config.Env) int {
	table := commands()
	if len(args) == 0 {
		usage(s.err, table)
		return exitUsage
	}
	name := args[0]
	if name == "-h" || name == "--help" || name == "help" {
		if len(args) > 1 && name == "help" {
			if c := find(table, args[1]); c != nil {
				commandUsage(s.out, c)
				return exitOK
			}
			fmt.Fprintln(s.err, "sutura: no such command (see sutura help)")
			return exitUsage
		}
		usage(s.out, table)
		return exitOK
	}
	c := find(table, name)
	if c == nil || c.run == nil {
		fmt.Fprintln(s.err, "sutura: no such command (see sutura help)")
		return exitUsage
	}
	fs := flag.NewFlagSet("sutura "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if c.flags != nil {
		c.flags(fs)
	}
	positional, err := parseInterspersed(fs, args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			commandUsage(s.out, c)
			return exitOK
		}
		fmt.Fprintf(s.err, "sutura: %s: %v\n", c.name, err)
		commandUsage(s.err, c)
		return exitUsage
	}
	if n := len(positional); n < c.minArgs || n > c.maxArgs {
		fmt.Fprintf(s.err, "sutura: %s takes %s\n", c.name, argCount(c))
		commandUsage(s.err, c)
		return exitUsage
	}
	inv := &invocation{ctx: ctx, args: positional, io: s, env: env}
	inv.flags = fs
	err = c.run(inv)
	var ue *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(s.err, "sutura: %s: %s\n", c.name, ue.msg)
		return exitUsage
	case errors.Is(err, errReported):
		return exitFail
	default:
		fmt.Fprintf(s.err, "sutura: %s\n", strings.TrimSpace(err.Error()))
		return exitFail
	}
}

// errReported means the command already wrote its failure to stderr.
var errReported = errors.New("reported")

func argCount(c *command) string {
	switch {
	case c.maxArgs == 0:
		return "no arguments"
	case c.minArgs == c.maxArgs:
		return fmt.Sprintf("exactly %d argument(s): %s", c.minArgs, c.args)
	}
	return fmt.Sprintf("at most %d argument(s): %s", c.maxArgs, c.args)
}

func find(table []*command, name string) *command {
	for _, c := range table {
		if c.name == name {
			return c
		}
	}
	return nil
}

func usage(w io.Writer, table []*command) {
	fmt.Fprintln(w, "sutura — a governed metrics server for AI agents")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "usage: sutura <command> [flags] [arguments]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	width := 0
	for _, c := range table {
		width = max(width, len(c.name))
	}
	for _, c := range table {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "configuration: SUTURA_CONFIG_DIR (base.yaml, <environment>.yaml), SUTURA_ENVIRONMENT,")
	fmt.Fprintln(w, "SUTURA__A__B variables; without SUTURA_CONFIG_DIR the embedded demo is used.")
}

func commandUsage(w io.Writer, c *command) {
	fmt.Fprintf(w, "usage: sutura %s", c.name)
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	if c.flags != nil {
		c.flags(fs)
		fmt.Fprint(w, " [flags]")
	}
	if c.args != "" {
		fmt.Fprint(w, " "+c.args)
	}
	fmt.Fprintf(w, "\n\n%s\n", c.summary)
	if c.flags != nil {
		fmt.Fprintln(w, "\nflags:")
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
}

// parseInterspersed parses flags wherever they stand among the positional
// arguments (sutura ask net_sales --grain month), as people type them; "--"
// ends flag parsing.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}
