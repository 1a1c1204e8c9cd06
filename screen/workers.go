package screen

import "time"

// The screen's deep, short work (a read's keys through Update, a command
// and the frame it draws, written through the connection's cipher) runs
// on workers that all screens share, rather than on a goroutine started
// for it. A new goroutine starts on a small stack and grows it by copying
// it whole, more than once for a frame: under load, a sizeable part of
// the server's CPU (see docs/performance.md). A worker keeps the stack it
// grew for the next piece of work. The screens' long-lived goroutines
// (the input reader) still wait shallow, on small stacks, and a worker
// left idle for workerIdle ends, giving its stack back: a pool sized by
// the work in flight, not by the screens open.

// workerIdle is how long a worker waits for more work before it ends.
const workerIdle = 2 * time.Second

// shared is the workers every screen's work runs on.
var shared = newWorkers(workerIdle)

// spawn runs f as `go f()` would, on a shared worker. f must not panic
// (the screen's own recover, contain, is deferred in every f it spawns).
func spawn(f func()) { shared.spawn(f) }

// workers is a pool of goroutines that run functions, each as `go f()`
// would: at once, on an idle worker, else on a new one.
type workers struct {
	// work hands a function to an idle worker: unbuffered, a send
	// succeeds only when a worker is waiting for it.
	work chan func()
	idle time.Duration // how long a worker waits for work before it ends
}

func newWorkers(idle time.Duration) *workers {
	return &workers{work: make(chan func()), idle: idle}
}

func (w *workers) spawn(f func()) {
	select {
	case w.work <- f:
	default:
		go w.run(f)
	}
}

// run runs f, then whatever spawn hands it, until it has waited w.idle
// for work.
func (w *workers) run(f func()) {
	f()
	idle := time.NewTimer(w.idle)
	for {
		select {
		case f := <-w.work:
			f()
			idle.Reset(w.idle)
		case <-idle.C:
			return
		}
	}
}
