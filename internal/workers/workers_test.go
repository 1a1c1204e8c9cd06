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
	// The worker is now idle (or about to be); hand work until it takes one.
	deadline := time.Now().Add(5 * time.Second)
	for {
		taken := make(chan bool, 1)
		select {
		case p.work <- func() { taken <- true }:
			<-taken
			return
		case <-time.After(time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("no idle worker took the work")
		}
	}
}
