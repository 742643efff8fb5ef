package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxMessageBytes bounds one stdio message when RunStdio is given no
// bound (server.max_body_bytes' default).
const DefaultMaxMessageBytes = 65536

// The SDK's own stdio framing (mcp.StdioTransport, mcp.IOTransport) ends the
// session on the first line that is too long or not JSON. lineTransport
// frames newline-delimited JSON-RPC itself so that such a line costs one
// error response, not the session, and never more memory than the bound.

// Fixed error responses of the framing. They never quote the line.
var (
	parseErrorLine     = []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the message is not one JSON-RPC object"}}` + "\n")
	tooLongErrorLine   = []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the message is longer than the bound on one message (server.max_body_bytes)"}}` + "\n")
	batchErrorLine     = []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: batches are not accepted; send one message per line"}}` + "\n")
	errConnectionEnded = errors.New("mcpserver: the stdio connection is closed")
)

// lineTransport is an mcp.Transport over a reader and a writer carrying one
// JSON-RPC message per line.
type lineTransport struct {
	in  io.Reader
	out io.Writer
	max int
}

// Connect implements mcp.Transport.
func (t *lineTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{out: t.out, incoming: make(chan readResult), closed: make(chan struct{}),
		pending: map[jsonrpc.ID]bool{}, answered: make(chan struct{}, 1)}
	go c.readLoop(bufio.NewReaderSize(t.in, 64<<10), t.max)
	return c, nil
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

// lineConn is an mcp.Connection. Reading happens on its own goroutine so that
// Close unblocks Read; that goroutine ends at the end of the input, or at the
// next line after Close.
//
// The end of the input is reported to the SDK only once every request read
// before it has been answered: the SDK cancels the requests still in flight
// when its reader ends, so a client that writes its requests and closes its
// end at once (printf '…' | sutura mcp) would otherwise get no answer.
type lineConn struct {
	wmu       sync.Mutex
	out       io.Writer
	incoming  chan readResult
	closed    chan struct{}
	closeOnce sync.Once

	pmu      sync.Mutex
	pending  map[jsonrpc.ID]bool // requests read and not yet answered
	answered chan struct{}       // signalled after each answer is written
}

func (c *lineConn) readLoop(r *bufio.Reader, max int) {
	for {
		line, tooLong, err := readLine(r, max)
		switch {
		case tooLong:
			c.writeRaw(tooLongErrorLine)
		case len(bytes.TrimSpace(line)) > 0:
			msg := c.decode(line)
			if msg != nil {
				c.expect(msg)
				if !c.deliver(readResult{msg: msg}) {
					return
				}
			}
		}
		if err != nil {
			c.awaitAnswers()
			c.deliver(readResult{err: err})
			return
		}
	}
}

// decode returns the message of one line, or nil after answering a line
// that is not a message.
func (c *lineConn) decode(line []byte) jsonrpc.Message {
	line = bytes.TrimSpace(line)
	if line[0] == '[' {
		c.writeRaw(batchErrorLine)
		return nil
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		c.writeRaw(parseErrorLine)
		return nil
	}
	return msg
}

// expect records a request that will be answered. A request whose id is
// already pending is not counted again: the SDK refuses it without an
// answer under that id.
func (c *lineConn) expect(msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.ID.IsValid() {
		return
	}
	c.pmu.Lock()
	c.pending[req.ID] = true
	c.pmu.Unlock()
}

// answer records that the response to id was written.
func (c *lineConn) answer(id jsonrpc.ID) {
	c.pmu.Lock()
	delete(c.pending, id)
	c.pmu.Unlock()
	select {
	case c.answered <- struct{}{}:
	default:
	}
}

// awaitAnswers returns once every request read so far has been answered,
// or the connection was closed.
func (c *lineConn) awaitAnswers() {
	for {
		c.pmu.Lock()
		n := len(c.pending)
		c.pmu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-c.answered:
		case <-c.closed:
			return
		}
	}
}

func (c *lineConn) deliver(r readResult) bool {
	select {
	case c.incoming <- r:
		return true
	case <-c.closed:
		return false
	}
}

// readLine reads one line without its newline. A line longer than max is
// read to its end and dropped (tooLong); at most max bytes are held.
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+1 { // +1: the newline itself
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			return nil, true, err
		}
		return bytes.TrimSuffix(line, []byte("\n")), false, err
	}
}

// Read implements mcp.Connection.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case r := <-c.incoming:
		return r.msg, r.err
	}
}

// Write implements mcp.Connection.
func (c *lineConn) Write(_ context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok {
		defer c.answer(resp.ID)
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	return c.writeRaw(append(scrub(data), '\n'))
}

func (c *lineConn) writeRaw(data []byte) error {
	select {
	case <-c.closed:
		return errConnectionEnded
	default:
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.out.Write(data)
	return err
}

// Close implements mcp.Connection.
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

// SessionID implements mcp.Connection: stdio has no session id.
func (c *lineConn) SessionID() string { return "" }
