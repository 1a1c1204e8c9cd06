package ai

import "time"

// String names a priority in logs and metrics: "hint" or "autoplay".
func (p Priority) String() string {
	if p == Hint {
		return "hint"
	}
	return "autoplay"
}

// WithSearchObserver has the pool tell observe how long each search took
// (searches skipped because their caller had gone are not told), from the
// worker's goroutine: it must be quick. It is for metrics.
func WithSearchObserver(observe func(prio Priority, took time.Duration)) PoolOption {
	return func(p *Pool) { p.observe = observe }
}

// Queued is how many requests of each priority wait for a worker now.
func (p *Pool) Queued() (hints, autoplays int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.queue.byPrio[Hint]), len(p.queue.byPrio[Autoplay])
}
