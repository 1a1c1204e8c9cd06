// Package workers runs deep, short work on goroutines that keep the stack
// they grew. A new goroutine starts on a small stack and grows it by
// copying it whole, more than once for a frame or a login's setup (a
// database read, the model's first Update, a write through the
// connection's cipher): under load, a sizeable part of the server's CPU
// (see docs/performance.md). A worker keeps the stack it grew for the next
// piece of work, and a worker left idle for Idle ends, giving its stack
// back: a pool sized by the work in flight, not by the sessions open.
// Long-lived goroutines (a screen's input reader, a session's handler)
// still wait shallow, on small stacks.
package workers

import "time"

// Idle is how long a worker of the shared pool waits for more work before
// it ends.
const Idle = 2 * time.Second

// shared is the pool Go runs work on, one for the whole process, so that
// a worker grown by a screen's frame serves a login's setup as well.
var shared = New(Idle)

// Go runs f as `go f()` would, on a worker of the process's shared pool.
// f must not panic: a panic on a worker ends the process, as in any
// goroutine, so callers recover in f.
func Go(f func()) { shared.Go(f) }

// Pool is a pool of goroutines that run functions, each as `go f()` would:
// at once, on an idle worker, else on a new one; never queued behind other
// work.
type Pool struct {
	// work hands a function to an idle worker: unbuffered, a send
	// succeeds only when a worker is waiting for it.
	work chan func()
	idle time.Duration // how long a worker waits for work before it ends
}

// New is a pool whose workers end after waiting idle for work.
func New(idle time.Duration) *Pool {
	return &Pool{work: make(chan func()), idle: idle}
}

// Go runs f at once, on an idle worker of p, else on a new one.
func (p *Pool) Go(f func()) {
	select {
	case p.work <- f:
	default:
		go p.run(f)
	}
}

// run runs f, then whatever Go hands it, until it has waited p.idle for
// work.
func (p *Pool) run(f func()) {
	f()
	idle := time.NewTimer(p.idle)
	for {
		select {
		case f := <-p.work:
			f()
			idle.Reset(p.idle)
		case <-idle.C:
			return
		}
	}
}
