package httpapi

import (
	"net"
	"sync"

	"sutura.dev/runtime"
)

// LimitListener returns ln bounded to the configured MaxConnections
// (server.max_connections) open at once: Accept waits while that many
// connections accepted through it are still open, so the kernel's backlog
// queues the rest and the process never runs out of file descriptors
// because of clients (slow readers, idle keep-alives). The connection
// deadlines of HTTPServer make every held connection end in bounded time.
func (s *Server) LimitListener(ln net.Listener) net.Listener {
	n := s.cfg.MaxConnections
	if n <= 0 {
		n = runtime.DefaultMaxConnections()
	}
	return &limitListener{Listener: ln, slots: make(chan struct{}, n), done: make(chan struct{})}
}

type limitListener struct {
	net.Listener
	slots     chan struct{} // one token per open connection
	done      chan struct{} // closed by Close
	closeOnce sync.Once
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitConn{Conn: c, release: func() { <-l.slots }}, nil
}

// Close closes the listener and wakes an Accept waiting for a slot.
func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// limitConn gives its slot back once, when it is closed.
type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
