package sqlite

import (
	"context"
	"fmt"

	"github.com/ssh2048/ssh2048/store"
)

// WithObserver has the store tell obs what it does; nil is no observer.
func WithObserver(obs store.Observer) Option { return func(o *options) { o.obs = obs } }

// Ping checks that the database answers a read, for a readiness probe.
func (s *Store) Ping(ctx context.Context) error {
	// A read of a table, not SELECT 1: it must reach the file.
	var any bool
	if err := s.read.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM games)`).Scan(&any); err != nil {
		return fmt.Errorf("ping store: %w", err)
	}
	return nil
}
