package screen

import (
	"runtime"
	"testing"
	"time"
)

// TestSpawnNeverQueues: work handed to spawn while every worker is busy
// runs at once, on a new worker, as `go f()` would: a command that waits
// (a move's commit) must not hold up another screen's keys.
func TestSpawnNeverQueues(t *testing.T) {
	w := newWorkers(time.Minute)
	const n = 50
	// Each f waits for the one spawned after it: all n must run at once.
	started := make([]chan struct{}, n+1)
	for i := range started {
		started[i] = make(chan struct{})
	}
	close(started[n])
	done := make(chan struct{}, n)
	for round := range 2 { // the second on the first's idle workers
		for i := range n {
			w.spawn(func() {
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
				t.Fatalf("round %d: spawned work waited for other work to end", round)
			}
		}
	}
}

// TestIdleWorkersEnd: workers left without work end, so that the pool
// holds stacks only for the work in flight.
func TestIdleWorkersEnd(t *testing.T) {
	w := newWorkers(50 * time.Millisecond)
	before := runtime.NumGoroutine()
	release := make(chan struct{})
	ran := make(chan struct{}, 20)
	for range 20 {
		w.spawn(func() { <-release; ran <- struct{}{} })
	}
	close(release)
	for range 20 {
		<-ran
	}
	waitFor(t, "the idle workers to end", func() bool { return runtime.NumGoroutine() <= before })
}
