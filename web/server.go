package web

import (
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

// Timeouts bound every connection of the HTTP server. Without them a
// client that sends its request a byte at a time (slowloris), or never
// reads the answer, or just keeps its connection open, holds a socket and
// a goroutine for as long as it likes; a few thousand such clients and
// the server is out of file descriptors.
type Timeouts struct {
	ReadHeader time.Duration // the request line and headers
	Read       time.Duration // the whole request (GET has no body to speak of)
	Write      time.Duration // from the end of the request's headers to the end of the answer
	Idle       time.Duration // a kept-alive connection between requests
}

// DefaultTimeouts are the HTTP server's: generous for a person on a slow
// link, short for a client that stalls on purpose. Write allows for the
// largest answer, the boards of a long game's replay.
func DefaultTimeouts() Timeouts {
	return Timeouts{ReadHeader: 5 * time.Second, Read: 10 * time.Second, Write: 30 * time.Second, Idle: 60 * time.Second}
}

// MaxConns caps the HTTP server's connections at once; more wait in the
// kernel's accept queue. With the timeouts it bounds what idle or stalled
// connections can hold.
const MaxConns = 1024

// NewServer returns an HTTP server for h with the timeouts t, its headers
// capped at 16 KB, logging through log. Serve it on a listener from
// LimitListener.
func NewServer(h http.Handler, t Timeouts, log *slog.Logger) *http.Server {
	if log == nil {
		log = slog.Default()
	}
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: t.ReadHeader,
		ReadTimeout:       t.Read,
		WriteTimeout:      t.Write,
		IdleTimeout:       t.Idle,
		MaxHeaderBytes:    16 << 10,
		// The server's own errors (a TLS client on a plain port, a
		// malformed request) are the client's doing: Debug, not Error.
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
}

// LimitListener accepts at most n connections at once from l; Accept
// waits while n are open.
func LimitListener(l net.Listener, n int) net.Listener {
	return &limitListener{Listener: l, slots: make(chan struct{}, n)}
}

type limitListener struct {
	net.Listener
	slots chan struct{}
}

func (l *limitListener) Accept() (net.Conn, error) {
	l.slots <- struct{}{}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &slotConn{Conn: c, release: func() { <-l.slots }}, nil
}

// slotConn gives its slot back when closed, once.
type slotConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *slotConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
