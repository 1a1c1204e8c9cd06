package workers

import (
	"runtime"
	"testing"
	"time"
)

// TestGoNeverQueues: work handed to Go while every worker is busy runs at
// once, on a new worker, as `go f()` would: a command that waits (a move's
// commit, a login's durable write) must not hold up another session.
func TestGoNeverQueues(t *testing.T) {
	p := New(time.Minute)
	const n = 50
	// Each f waits for the one handed over after it: all n must run at once.
	started := make([]chan struct{}, n+1)
	for i := range started {
		started[i] = make(chan struct{})
	}
	close(started[n])
	done := make(chan struct{}, n)
	for round := range 2 { // the second on the first's idle workers
		for i := range n {
			p.Go(func() {
				if round == 0 {
					close(started[i])
				}
				<-started[i+1]
				done <- struct{}{}
			})
		}
		for range n {
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("round %d: work waited for other work to end", round)
			}
		}
	}
}

// TestIdleWorkersEnd: workers left without work end, so that the pool
// holds stacks only for the work in flight.
func TestIdleWorkersEnd(t *testing.T) {
	p := New(50 * time.Millisecond)
	before := runtime.NumGoroutine()
	release := make(chan struct{})
	ran := make(chan struct{}, 20)
	for range 20 {
		p.Go(func() { <-release; ran <- struct{}{} })
	}
	close(release)
	for range 20 {
		<-ran
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines, %d before: the idle workers did not end", runtime.NumGoroutine(), before)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestWorkerIsReused: work handed over while a worker waits idle runs on
// that worker, not on a new goroutine, which is what keeps its grown stack
// in use.
func TestWorkerIsReused(t *testing.T) {
	p := New(time.Minute)
	ran := make(chan struct{})
	p.Go(func() { ran <- struct{}{} })
	<-ran
	waitFor(t, "the worker to go idle", func() bool { return idleWorkers(p) == 1 })
	before := runtime.NumGoroutine()
	release := make(chan struct{})
	p.Go(func() { ran <- struct{}{}; <-release })
	<-ran
	if n, idle := runtime.NumGoroutine(), idleWorkers(p); n != before || idle != 0 {
		t.Errorf("%d goroutines and %d idle workers while the work ran, want %d and 0: it ran on a new goroutine", n, idle, before)
	}
	close(release)
}

// TestPoolShrinksAfterABurst: after a burst, steady work that needs one
// worker at a time keeps one busy, and the burst's others end. Handed to
// the worker idle longest, the work would visit them all in turn and keep
// every one alive, with its stack, for as long as the work went on.
func TestPoolShrinksAfterABurst(t *testing.T) {
	const idle = 300 * time.Millisecond
	p := New(idle)
	before := runtime.NumGoroutine()
	const burst = 50
	release := make(chan struct{})
	ran := make(chan struct{}, burst)
	for range burst {
		p.Go(func() { <-release; ran <- struct{}{} })
	}
	close(release)
	for range burst {
		<-ran
	}
	// One piece of work at a time, each burst worker's turn well within
	// idle if they took turns, for several times idle.
	for end := time.Now().Add(5 * idle); time.Now().Before(end); {
		p.Go(func() { ran <- struct{}{} })
		<-ran
		time.Sleep(idle / burst / 3)
	}
	if n := runtime.NumGoroutine() - before; n > 2 {
		t.Errorf("%d workers left of the burst's %d, with one piece of work at a time for %v", n, burst, 5*idle)
	}
}

func idleWorkers(p *Pool) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.idle)
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 5 s for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}
