package review

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/engine/ai"
)

// clockedEvaluator advances a fake clock by cost on each evaluation.
type clockedEvaluator struct {
	clock *time.Time
	cost  time.Duration
	err   error
}

func (c clockedEvaluator) Evaluate(context.Context, engine.Board, int) (ai.Evaluation, error) {
	*c.clock = c.clock.Add(c.cost)
	return ai.Evaluation{}, c.err
}

func TestWithShare(t *testing.T) {
	tests := []struct {
		name  string
		share float64
		cost  time.Duration
		err   error
		want  time.Duration // the wait after one evaluation
	}{
		{"a quarter waits three times the search", 0.25, 4 * time.Millisecond, nil, 12 * time.Millisecond},
		{"a half waits as long as the search", 0.5, 4 * time.Millisecond, nil, 4 * time.Millisecond},
		{"a failed search does not wait", 0.25, 4 * time.Millisecond, errors.New("gone"), -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := time.Unix(0, 0)
			ev := WithShare(clockedEvaluator{&clock, tt.cost, tt.err}, tt.share).(*shared)
			waited := time.Duration(-1)
			ev.now = func() time.Time { return clock }
			ev.wait = func(_ context.Context, d time.Duration) error { waited = d; return nil }
			_, err := ev.Evaluate(context.Background(), engine.Board{}, 1)
			if !errors.Is(err, tt.err) {
				t.Fatalf("err %v, want %v", err, tt.err)
			}
			if waited != tt.want {
				t.Errorf("waited %v, want %v", waited, tt.want)
			}
		})
	}
	plain := clockedEvaluator{clock: new(time.Time)}
	if got := WithShare(plain, 1); got != Evaluator(plain) {
		t.Errorf("a share of 1 wraps the evaluator: %T", got)
	}
}

func TestWaitEndsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := wait(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("wait on a cancelled context: %v", err)
	}
}
