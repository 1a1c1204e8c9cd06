package ai

import "time"

// String names a priority in logs and metrics: "hint", "autoplay" or
// "review".
func (p Priority) String() string {
	switch p {
	case Hint:
		return "hint"
	case Review:
		return "review"
	}
	return "autoplay"
}

// WithSearchObserver has the pool tell observe how long each search took
// (searches skipped because their caller had gone are not told), from the
// worker's goroutine: it must be quick. It is for metrics.
func WithSearchObserver(observe func(prio Priority, took time.Duration)) PoolOption {
	return func(p *Pool) { p.observe = observe }
}

// Queued is how many hint and autoplay requests wait for a worker now
// (reviews' evaluations are not counted: their queue is bounded by their
// own caller, one request per review).
func (p *Pool) Queued() (hints, autoplays int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.queue.byPrio[Hint]), len(p.queue.byPrio[Autoplay])
}
