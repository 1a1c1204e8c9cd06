package review

import (
	"context"
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/engine/ai"
)

// WithShare holds the reviews made through ev to about share of one
// core (0 < share < 1): after each evaluation it waits share's
// complement of the time the evaluation took, so a review that would
// keep a worker busy for a second takes 1/share seconds and leaves the
// rest to the players' keystrokes. The pool already puts reviews behind
// hints and autoplay, but on a machine of two cores the one worker a
// review may take is half the machine; the wait is what makes the share
// a choice. The caller waits, not the pool's worker, so a hint never
// queues behind it. A share of 1 or more returns ev itself.
func WithShare(ev Evaluator, share float64) Evaluator {
	if share >= 1 {
		return ev
	}
	return &shared{ev: ev, share: share, now: time.Now, wait: wait}
}

type shared struct {
	ev    Evaluator
	share float64
	now   func() time.Time
	wait  func(context.Context, time.Duration) error
}

func (s *shared) Evaluate(ctx context.Context, board engine.Board, depth int) (ai.Evaluation, error) {
	start := s.now()
	e, err := s.ev.Evaluate(ctx, board, depth)
	if err != nil {
		return e, err
	}
	took := s.now().Sub(start)
	if err := s.wait(ctx, time.Duration(float64(took)*(1/s.share-1))); err != nil {
		return ai.Evaluation{}, err
	}
	return e, nil
}

// wait sleeps d, or less if ctx ends first.
func wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
