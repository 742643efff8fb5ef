package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// commandContext is exec.CommandContext, a variable so that nothing else
// in the command starts processes.
var commandContext = exec.CommandContext

// process is a sutura process of the soak: its command, and the audit
// records it wrote to its standard error (one JSON line with an outcome
// each), counted as they come.
type process struct {
	name    string
	cmd     *exec.Cmd
	audit   atomic.Int64
	drained chan struct{} // closed when its standard error reached its end
}

// countAudit counts the audit records of r (the process's standard
// error) until it ends.
func (p *process) countAudit(r io.Reader) {
	defer close(p.drained)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "{") && strings.Contains(sc.Text(), `"outcome":`) {
			p.audit.Add(1)
		}
	}
	_, _ = io.Copy(io.Discard, r)
}

// configDir writes the soak's configuration: the embedded demo, audit
// records to standard error (the default), and a rate limit no load of
// one subject reaches (the soak's callers are all the local operator).
func configDir() (string, error) {
	dir, err := os.MkdirTemp("", "sutura-soak-config")
	if err != nil {
		return "", err
	}
	yaml := "server: {rate_limit: {per_second: 100000, burst: 100000}}\n"
	return dir, os.WriteFile(filepath.Join(dir, "base.yaml"), []byte(yaml), 0o600)
}

// environment is a sutura process's environment: nothing of the caller's
// but PATH.
func environment(config string) []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + config, "SUTURA_CONFIG_DIR=" + config, "SUTURA__SERVER__PORT=0"}
}

// startServe starts `sutura serve` and returns it with its base URL.
func startServe(ctx context.Context, c config, config string) (*process, string, error) {
	cmd := commandContext(ctx, c.sutura, "serve")
	cmd.Env = environment(config)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, "", err
	}
	p := &process{name: "serve", cmd: cmd, drained: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	go p.countAudit(stderr)
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "listening on http://") {
		_ = cmd.Process.Kill()
		return nil, "", fmt.Errorf("sutura serve did not start: %q %v", line, err)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return p, strings.TrimSpace(strings.TrimPrefix(line, "listening on ")), nil
}

// startStdio starts `sutura mcp` and connects the go-sdk client to it
// over its standard input and output.
func startStdio(ctx context.Context, c config, config string) (*process, *mcp.ClientSession, error) {
	cmd := commandContext(ctx, c.sutura, "mcp")
	cmd.Env = environment(config)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, nil, err
	}
	p := &process{name: "mcp (stdio)", cmd: cmd, drained: make(chan struct{})}
	client := mcp.NewClient(&mcp.Implementation{Name: "sutura-soak", Version: "1"}, nil)
	sess, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("sutura mcp: %w", err)
	}
	go p.countAudit(stderr)
	return p, sess, nil
}

// run runs the soak c describes and returns what it saw.
func run(ctx context.Context, c config) (*report, error) {
	config, err := configDir()
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(config)
	procCtx, kill := context.WithCancel(context.WithoutCancel(ctx))
	defer kill()
	serve, base, err := startServe(procCtx, c, config)
	if err != nil {
		return nil, err
	}
	procs := []*process{serve}
	var stdio *mcp.ClientSession
	if c.mix["stdio"] > 0 {
		p, sess, err := startStdio(procCtx, c, config)
		if err != nil {
			return nil, err
		}
		procs, stdio = append(procs, p), sess
	}
	qs, err := questions(base)
	if err != nil {
		return nil, err
	}

	rep := &report{config: c, questions: len(qs), byTransport: map[string]*tally{}}
	for _, tr := range transports {
		rep.byTransport[tr] = newTally()
	}
	// Every caller is connected before the load starts.
	type callerOf struct {
		transport string
		ask       func(context.Context, question) (string, error)
		done      func()
	}
	var callers []callerOf
	defer func() {
		for _, cl := range callers {
			cl.done()
		}
	}()
	httpClient := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: c.mix["http"] + 1}, Timeout: time.Minute}
	for _, tr := range transports {
		for range c.mix[tr] {
			ask, done, err := asker(ctx, tr, base, httpClient, stdio)
			if err != nil {
				return nil, err
			}
			callers = append(callers, callerOf{tr, ask, done})
		}
	}
	load, stopLoad := context.WithTimeout(ctx, c.duration)
	defer stopLoad()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		calls atomic.Int64
	)
	for i, cl := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			own := newTally()
			for n := i; load.Err() == nil; n++ {
				q := qs[n%len(qs)]
				callCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
				start := time.Now()
				got, err := cl.ask(callCtx, q)
				own.add(time.Since(start), q, got, err)
				cancel()
				calls.Add(1)
			}
			mu.Lock()
			rep.byTransport[cl.transport].merge(own)
			mu.Unlock()
		}()
	}

	start := time.Now()
	tick := time.NewTicker(c.sample)
	rep.samples = append(rep.samples, sampleOf(0, 0, procs))
sampling:
	for {
		select {
		case <-load.Done():
			break sampling
		case <-tick.C:
			rep.samples = append(rep.samples, sampleOf(time.Since(start), calls.Load(), procs))
		}
	}
	tick.Stop()
	wg.Wait()
	rep.elapsed = time.Since(start)
	rep.samples = append(rep.samples, sampleOf(rep.elapsed, calls.Load(), procs))
	for _, p := range procs {
		rep.peaks = append(rep.peaks, peak{name: p.name, bytes: procStatus(p.cmd.Process.Pid, "VmHWM")})
	}

	// The processes end: serve on SIGTERM (exit code 0 says every
	// question in flight finished within the grace), the stdio process
	// when the client closes its input (the client waits for it).
	_ = serve.cmd.Process.Signal(syscall.SIGTERM)
	exited := make(chan error, 1)
	go func() { exited <- serve.cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			rep.problems = append(rep.problems, fmt.Sprintf("serve exited on SIGTERM: %v", err))
		}
	case <-time.After(30 * time.Second):
		rep.problems = append(rep.problems, "serve did not exit within 30 s of SIGTERM")
		_ = serve.cmd.Process.Kill()
		<-exited
	}
	if stdio != nil {
		_ = stdio.Close()
	}
	for _, p := range procs {
		select {
		case <-p.drained:
		case <-time.After(30 * time.Second):
			rep.problems = append(rep.problems, p.name+" did not close its standard error")
		}
		rep.audit += p.audit.Load()
	}
	return rep, nil
}

// asker returns the function a caller of transport tr asks a question
// with, and what to call when the caller is done.
func asker(ctx context.Context, tr, base string, client *http.Client, stdio *mcp.ClientSession) (func(context.Context, question) (string, error), func(), error) {
	switch tr {
	case "http":
		return func(ctx context.Context, q question) (string, error) { return askHTTP(ctx, client, base, q) }, func() {}, nil
	case "mcp":
		c := mcp.NewClient(&mcp.Implementation{Name: "sutura-soak", Version: "1"}, nil)
		sess, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
		if err != nil {
			return nil, nil, fmt.Errorf("MCP Streamable HTTP: %w", err)
		}
		return func(ctx context.Context, q question) (string, error) { return askMCP(ctx, sess, q) },
			func() { _ = sess.Close() }, nil
	}
	return func(ctx context.Context, q question) (string, error) { return askMCP(ctx, stdio, q) }, func() {}, nil
}

// procStatus reads the field (VmRSS, VmHWM) of /proc/<pid>/status, in
// bytes; 0 when it cannot be read.
func procStatus(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			var kb int64
			_, _ = fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(v), " kB"), &kb)
			return kb << 10
		}
	}
	return 0
}

// sampleOf is the resident memory of procs at elapsed, after calls.
func sampleOf(elapsed time.Duration, calls int64, procs []*process) sample {
	s := sample{at: elapsed, calls: calls}
	for _, p := range procs {
		s.rss = append(s.rss, procStatus(p.cmd.Process.Pid, "VmRSS"))
	}
	return s
}

// askHTTP posts q to /v1/query and names the outcome: "answer",
// "refusal <code>", or the failure's code.
func askHTTP(ctx context.Context, client *http.Client, base string, q question) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/query", strings.NewReader(q.json))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	return outcomeOf(body)
}

// askMCP calls ask_metric with q and names the outcome as askHTTP does; a
// tool error is at_capacity when it says so, else "tool error: <text>".
func askMCP(ctx context.Context, sess *mcp.ClientSession, q question) (string, error) {
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "ask_metric", Arguments: q.args})
	if err != nil {
		return "", err
	}
	if res.IsError {
		var text string
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				text += t.Text
			}
		}
		if strings.Contains(text, "at capacity") {
			return "at_capacity", nil
		}
		return "tool error: " + text, nil
	}
	body, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return "", err
	}
	return outcomeOf(body)
}

// outcomeOf names the outcome of an answer, refusal or failure body.
func outcomeOf(body []byte) (string, error) {
	var b struct {
		Outcome string
		Reason  struct{ Code string }
		Code    string
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return "", fmt.Errorf("a body that is not JSON: %.80q", body)
	}
	switch {
	case b.Outcome == "answer":
		return "answer", nil
	case b.Outcome == "refusal":
		return "refusal " + b.Reason.Code, nil
	case b.Code != "":
		return b.Code, nil
	}
	return "", fmt.Errorf("a body that is no outcome: %.80q", body)
}
