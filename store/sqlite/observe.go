package db

import (
	"context"
	"fmt"
	"time"
)

// Observer is told what the store does, for an operator's metrics (package
// metrics implements it). Its methods are called on the store's hot paths,
// the writer goroutine among them: they must be quick and never block.
type Observer interface {
	// Committed: one group commit of writes writes, took from BEGIN to
	// the end of COMMIT (the fsync included).
	Committed(writes int, took time.Duration)
	// Waited: one write was answered (committed or refused), took from
	// being queued: what the caller waited, the group's commit included.
	Waited(took time.Duration)
	// MoveStored: AppendMove committed a move.
	MoveStored()
	// Failed: a database operation failed in a way that is not the
	// caller's doing (not a conflict or an ended game); op is "begin",
	// "write", "commit" or "checkpoint".
	Failed(op string)
}

// WithObserver has the store tell obs what it does; nil is no observer.
func WithObserver(obs Observer) Option { return func(o *options) { o.obs = obs } }

// nopObserver is the observer of a store opened without one.
type nopObserver struct{}

func (nopObserver) Committed(int, time.Duration) {}
func (nopObserver) Waited(time.Duration)         {}
func (nopObserver) MoveStored()                  {}
func (nopObserver) Failed(string)                {}

// Ping checks that the database answers a read, for a readiness probe.
func (s *Store) Ping(ctx context.Context) error {
	// A read of a table, not SELECT 1: it must reach the file.
	var any bool
	if err := s.read.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM games)`).Scan(&any); err != nil {
		return fmt.Errorf("ping store: %w", err)
	}
	return nil
}
