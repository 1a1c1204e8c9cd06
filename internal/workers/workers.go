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
//
// Work goes to the worker that went idle last. Handed to the one idle
// longest, as a channel's waiting receivers are served, a burst's workers
// would take turns at the steady work that follows and none would wait
// long enough to end: the pool would stay the size of its largest burst,
// with every worker's grown stack.
package workers

import (
	"slices"
	"sync"
	"time"
)

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
	idleFor time.Duration // how long a worker waits for work before it ends

	mu   sync.Mutex
	idle []*worker // the workers waiting for work, the last to go idle last
}

// worker is one goroutine of a pool; work hands it its next function.
// Only the one who took the worker off the pool's idle list sends, once,
// so the buffer of one never blocks the sender.
type worker struct {
	work chan func()
}

// New is a pool whose workers end after waiting idle for work.
func New(idle time.Duration) *Pool {
	return &Pool{idleFor: idle}
}

// Go runs f at once, on the worker of p that went idle last, else on a
// new one.
func (p *Pool) Go(f func()) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		w := p.idle[n-1]
		p.idle[n-1] = nil
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		w.work <- f
		return
	}
	p.mu.Unlock()
	go p.run(&worker{work: make(chan func(), 1)}, f)
}

// run runs f, then whatever Go hands w, until w has waited p.idleFor for
// work.
func (p *Pool) run(w *worker, f func()) {
	idle := time.NewTimer(p.idleFor)
	for {
		f()
		p.mu.Lock()
		p.idle = append(p.idle, w)
		p.mu.Unlock()
		idle.Reset(p.idleFor)
		select {
		case f = <-w.work:
			continue
		case <-idle.C:
		}
		if p.leave(w) {
			return
		}
		// Go took w off the list as its wait ran out: the work is on
		// its way.
		f = <-w.work
	}
}

// leave takes w off the idle list, unless Go took it first.
func (p *Pool) leave(w *worker) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	// The longest idle are first: that is where a worker whose wait ran
	// out is found.
	for i, x := range p.idle {
		if x == w {
			p.idle = slices.Delete(p.idle, i, i+1)
			return true
		}
	}
	return false
}
