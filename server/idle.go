package server

import (
	"net"
	"sync/atomic"
	"time"
)

// idleConn closes a connection after timeout without input from the
// client. It replaces ssh.Server.IdleTimeout, whose deadline bookkeeping in
// charm.land/ssh v0.4.2 races with the handshake (a field written after the
// handshake is read by the connection's read loop): here the only shared
// state is an atomic timestamp, and deadlines stay with the handshake
// timeout.
type idleConn struct {
	net.Conn
	timeout  time.Duration
	lastRead atomic.Int64 // unix nanoseconds
	timer    *time.Timer
	onIdle   func()
}

func newIdleConn(c net.Conn, timeout time.Duration, onIdle func()) *idleConn {
	ic := &idleConn{Conn: c, timeout: timeout, onIdle: onIdle}
	ic.lastRead.Store(time.Now().UnixNano())
	// Armed only once ic.timer is set, so check never sees it unset.
	ic.timer = time.AfterFunc(time.Hour, ic.check)
	ic.timer.Reset(timeout)
	return ic
}

// check closes the connection if it has been idle long enough, or
// re-arms the timer for the rest of the interval. One timer per
// connection, not one reset per read.
func (c *idleConn) check() {
	idle := time.Since(time.Unix(0, c.lastRead.Load()))
	if idle < c.timeout {
		c.timer.Reset(c.timeout - idle)
		return
	}
	if c.onIdle != nil {
		c.onIdle()
	}
	c.Conn.Close()
}

func (c *idleConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.lastRead.Store(time.Now().UnixNano())
	}
	return n, err
}

func (c *idleConn) Close() error {
	c.timer.Stop()
	return c.Conn.Close()
}
