package admission

import (
	"context"
	"runtime"
	"testing"
	"time"

	"charm.land/ssh"
)

// connContext stands in for the connection's ssh.Context: only its
// context.Context methods are called here.
type connContext struct {
	ssh.Context
	ctx context.Context
}

func (c connContext) Value(key any) any                { return c.ctx.Value(key) }
func (c connContext) Done() <-chan struct{}            { return c.ctx.Done() }
func (c connContext) Err() error                       { return c.ctx.Err() }
func (c connContext) Deadline() (d time.Time, ok bool) { return c.ctx.Deadline() }

// TestSessionContextDerivesWithoutGoroutines: contexts made from a
// session's context (a race screen's, one a racer) cost no goroutine
// each, and are cancelled when the session's is.
func TestSessionContextDerivesWithoutGoroutines(t *testing.T) {
	conn, endConn := context.WithCancel(context.Background())
	defer endConn()
	done, endSession := context.WithCancel(conn)
	sc := &sessionContext{Context: connContext{ctx: conn}, done: done}

	before := runtime.NumGoroutine()
	var children []context.Context
	for range 100 {
		child, cancel := context.WithCancel(sc)
		defer cancel()
		children = append(children, child)
	}
	if added := runtime.NumGoroutine() - before; added > 10 {
		t.Errorf("100 contexts made from a session's started %d goroutines", added)
	}
	endSession()
	for i, child := range children {
		select {
		case <-child.Done():
		case <-time.After(5 * time.Second):
			t.Fatalf("context %d not cancelled with its session's", i)
		}
	}
}
