package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/testtier"
)

// The README walk: the README's marked blocks are run as a new user would
// run them, in a fresh clone of the repository at HEAD, against the built
// binary, with standard error on a terminal.
//
// A block is marked by an HTML comment on the line before its fence:
//
//	<!-- readme-walk: commands NAME -->  every line is a command (# starts a comment)
//	<!-- readme-walk: file PATH -->      the block is written to PATH (~ is the walk's home)
//	<!-- readme-walk: output of CMD -->  the stdout of the walked command CMD begins with the block
//
// A command's own comment may say what to expect: "(exits N)" for an exit
// status other than 0, "(may be empty)" for an answer that may have no
// rows. Every other ask or query must answer with at least one row.

// walkMarker is the comment that marks a block.
var walkMarker = regexp.MustCompile(`^<!-- readme-walk: (commands|file|output of) (.+) -->$`)

// The commands the walk runs otherwise than written, and why.
var (
	// substituted maps a command as the README writes it to what the walk
	// runs: the walk tests the binary this test built, not a second
	// compilation of the same sources in the clone (which would take
	// minutes on a shared two-core machine and test the compiler, not the
	// README).
	substituted = []struct{ readme, walk string }{
		{"go build -o bin/sutura ./cli/cmd/sutura", "mkdir -p bin && cp \"$SUTURA_WALK_BIN\" bin/sutura"},
		{"go run ./cli/cmd/sutura", "\"$SUTURA_WALK_BIN\""},
	}
	// notWalked are commands the walk does not run.
	notWalked = map[string]string{
		"./scripts/test": "it runs every test, this walk among them: walking it would run the walk again, recursively",
	}
)

type walkBlock struct {
	kind, arg string
	lines     []string
}

// walkBlocks returns the marked blocks of a README, in order.
func walkBlocks(t *testing.T, readme string) []walkBlock {
	t.Helper()
	var blocks []walkBlock
	lines := strings.Split(readme, "\n")
	for i := 0; i < len(lines); i++ {
		m := walkMarker.FindStringSubmatch(lines[i])
		if m == nil {
			require.NotContains(t, lines[i], "readme-walk", "line %d: a walk marker the walk does not understand", i+1)
			continue
		}
		require.Less(t, i+1, len(lines))
		require.True(t, strings.HasPrefix(lines[i+1], "```"), "line %d: a walk marker must stand right above a fence", i+1)
		b := walkBlock{kind: m[1], arg: m[2]}
		for i += 2; i < len(lines) && lines[i] != "```"; i++ {
			b.lines = append(b.lines, lines[i])
		}
		require.Less(t, i, len(lines), "an unclosed fence after a walk marker")
		blocks = append(blocks, b)
	}
	return blocks
}

// walkCommand is one command line of a commands block.
type walkCommand struct {
	text       string // as the README writes it, without its comment
	exit       int
	mayBeEmpty bool
}

var exitsNote = regexp.MustCompile(`\(exits (\d+)\)`)

func parseCommands(t *testing.T, lines []string) []walkCommand {
	t.Helper()
	var out []walkCommand
	for _, line := range lines {
		text, comment := line, ""
		if i := strings.Index(line, " #"); i >= 0 {
			text, comment = line[:i], line[i:]
		}
		text = strings.TrimSpace(text)
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		require.False(t, strings.HasSuffix(text, `\`), "a walked command is one line: %s", line)
		c := walkCommand{text: text, mayBeEmpty: strings.Contains(comment, "(may be empty)")}
		if m := exitsNote.FindStringSubmatch(comment); m != nil {
			c.exit, _ = strconv.Atoi(m[1])
		}
		out = append(out, c)
	}
	return out
}

// shellOf is what the walk runs for a README command.
func shellOf(text string) string {
	for _, s := range substituted {
		if strings.HasPrefix(text, s.readme) {
			return s.walk + text[len(s.readme):]
		}
	}
	return text
}

// auditLine is a JSON audit record as the audit writes it.
var auditLine = regexp.MustCompile(`(?m)^\{.*"correlation_id".*\}$`)

// rowCount is the rows an ask or query printed: the count line of the
// table, or the rows of the JSON body; -1 when the output holds neither.
func rowCount(stdout string) int {
	if m := regexp.MustCompile(`(?m)^(\d+) row\(s\)$`).FindStringSubmatch(stdout); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	if regexp.MustCompile(`(?m)^0 rows: `).MatchString(stdout) {
		return 0
	}
	var body struct {
		Outcome string            `json:"outcome"`
		Rows    []json.RawMessage `json:"rows"`
	}
	if json.Unmarshal([]byte(stdout), &body) == nil && body.Outcome == "answer" {
		return len(body.Rows)
	}
	return -1
}

// TestREADMEWalk walks the README's two commands, its tour and its own
// data example (see the package comment above walkMarker).
func TestREADMEWalk(t *testing.T) {
	if testing.Short() {
		testtier.Need(t, "readme", "-short skips the README walk")
	}
	requireTerminal(t)
	git, err := exec.LookPath("git")
	if err != nil {
		testtier.Need(t, "readme", "git is not installed")
	}
	root, err := execCommand(git, "rev-parse", "--show-toplevel")
	if err != nil {
		testtier.Need(t, "readme", "not a git checkout: "+strings.TrimSpace(root))
	}
	bin := binary(t)
	head, err := execCommand(git, "rev-parse", "HEAD")
	require.NoError(t, err, head)
	clone := t.TempDir()
	out, err := execCommand(git, "clone", "--quiet", "--no-checkout", strings.TrimSpace(root), clone)
	require.NoError(t, err, out)
	out, err = execCommand(git, "-C", clone, "checkout", "--quiet", strings.TrimSpace(head))
	require.NoError(t, err, out)
	readme, err := os.ReadFile(filepath.Join(clone, "README.md"))
	require.NoError(t, err)

	home := t.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "SUTURA_WALK_BIN=" + bin,
		// serve's default port may be taken on a shared machine.
		"SUTURA__SERVER__PORT=0"}
	blocks := walkBlocks(t, string(readme))
	names := map[string]bool{}
	stdouts := map[string]string{}
	asked := 0
	for _, b := range blocks {
		switch b.kind {
		case "file":
			path := strings.Replace(b.arg, "~", home, 1)
			require.True(t, strings.HasPrefix(path, home+"/"), "a walked file is written under the walk's home: %s", b.arg)
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			require.NoError(t, os.WriteFile(path, []byte(strings.Join(b.lines, "\n")+"\n"), 0o644))
		case "output of":
			got, ok := stdouts[b.arg]
			require.True(t, ok, "the README shows the output of %q, which the walk has not run before it", b.arg)
			want := strings.Join(b.lines, "\n") + "\n"
			assert.True(t, strings.HasPrefix(got, want), "the README shows output the command does not print:\n--- README ---\n%s--- printed ---\n%s", want, got)
		case "commands":
			names[b.arg] = true
			for _, c := range parseCommands(t, b.lines) {
				if why, skip := notWalked[c.text]; skip {
					t.Logf("not walked: %s: %s", c.text, why)
					continue
				}
				t.Run(c.text, func(t *testing.T) {
					if strings.HasSuffix(c.text, " serve") {
						walkServe(t, clone, env, shellOf(c.text))
						return
					}
					stdout, stderr, code := walkRun(t, clone, env, shellOf(c.text))
					stdouts[c.text] = stdout
					require.Equal(t, c.exit, code, "exit status of %s\nstdout:\n%s\nstderr:\n%s", c.text, stdout, stderr)
					assert.False(t, auditLine.MatchString(stderr), "a JSON audit record on the terminal:\n%s", stderr)
					if regexp.MustCompile(`sutura (ask|query) `).MatchString(c.text) {
						asked++
						n := rowCount(stdout)
						if c.exit == 0 && !c.mayBeEmpty {
							assert.Greater(t, n, 0, "the README shows an answer with rows; this one has none:\n%s", stdout)
						}
					}
				})
			}
		}
	}
	for _, want := range []string{"the two commands", "the tour", "your own data"} {
		assert.True(t, names[want], "the README has no walked block %q", want)
	}

	// The audit happened, to the file a terminal's records go to.
	audit, err := os.ReadFile(filepath.Join(home, ".local", "state", "sutura", auditFileName))
	require.NoError(t, err, "the records of the questions asked at a terminal")
	assert.GreaterOrEqual(t, strings.Count(string(audit), "\n"), asked)

	// The tour leaves nothing in the working tree but what .gitignore covers.
	status, err := execCommand(git, "-C", clone, "status", "--porcelain", "--untracked-files=all")
	require.NoError(t, err, status)
	assert.Empty(t, strings.TrimSpace(status), "the walk left files in the working tree")
}

// walkRun runs one command in dir with stdin empty, stdout captured and
// stderr on a terminal.
func walkRun(t *testing.T, dir string, env []string, shell string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", shell)
	cmd.Dir, cmd.Env = dir, env
	var out bytes.Buffer
	cmd.Stdout = &out
	stderr, err := runOnTerminal(t, cmd)
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), stderr, ee.ExitCode()
	}
	require.NoError(t, err, stderr)
	return out.String(), stderr, 0
}

// walkServe starts serve, waits for its listening line (exactly the first
// line of stdout), asks /health, and stops it with SIGTERM: it must exit 0.
func walkServe(t *testing.T, dir string, env []string, shell string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", "exec "+shell)
	cmd.Dir, cmd.Env = dir, env
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	p := startOnTerminal(t, cmd)
	defer func() { _ = cmd.Process.Kill() }()
	lines := bufio.NewReader(stdout)
	first, err := lines.ReadString('\n')
	require.NoError(t, err)
	require.Regexp(t, `^listening on http://127\.0\.0\.1:\d+\n$`, first)
	base := strings.TrimSpace(strings.TrimPrefix(first, "listening on "))
	resp, err := http.Get(base + "/health")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, `{"status":"ok"}`, strings.TrimSpace(string(body)))
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	go func() { _, _ = io.Copy(io.Discard, lines) }()
	stderr, err := p.Wait()
	require.NoError(t, err, stderr)
	assert.False(t, auditLine.MatchString(stderr), "a JSON audit record on the terminal:\n%s", stderr)
}
