package review

import (
	"context"
	"fmt"
	"math/bits"
)

// sameDice plays on from the checkpoints and finds the turning point:
// "what could the AI have made of this game from here, with the very
// tiles the game's generator gives next?" Replaying the game's own moves
// to a checkpoint leaves its generator where the game left it, so the AI
// playing on draws the seed's stream exactly as the player would have.
//
// The turning point: let target be the largest tile any checkpoint's
// playout reaches. If the game reached it too, there is none. Otherwise
// take the last checkpoint whose playout reaches it and the next position
// known not to (the next checkpoint, or the end of the game), and halve
// the gap with playouts that stop once they reach the target, until the
// two are one move apart: that move is the one after which the AI, from
// there on, no longer reaches the target.
func sameDice(ctx context.Context, ev Evaluator, g Game, r *Review, progress Progress) error {
	n := len(g.Dirs)
	var at []int
	for i := range Checkpoints {
		if c := i * n / Checkpoints; len(at) == 0 || c != at[len(at)-1] {
			at = append(at, c)
		}
	}
	// A game that ended with moves left (its player started another)
	// is played on from its last board too: whatever the AI reaches from
	// there, the player could have reached by going on.
	final, err := g.Generator.Replay(g.Size, g.Seed, g.Dirs)
	if err != nil {
		return fmt.Errorf("review: %w", err)
	}
	if !final.Over() {
		at = append(at, n)
	}
	steps := float64(len(at) + bits.Len(uint(n/len(at))))
	done := 0
	step := func() {
		done++
		progress(evalShare + (1-evalShare)*min(float64(done)/steps, 1))
	}
	target, last := 0, -1
	for _, c := range at {
		cp, err := playout(ctx, ev, g, r.PlayoutDepth, c, 0)
		if err != nil {
			return err
		}
		r.Checkpoints = append(r.Checkpoints, cp)
		step()
		if cp.MaxTile > target {
			target = cp.MaxTile
		}
	}
	for i, cp := range r.Checkpoints {
		if cp.MaxTile >= target {
			last = i
		}
	}
	if r.MaxTile >= target || at[last] == n {
		return nil
	}
	lo, hi := at[last], n
	if last+1 < len(at) {
		hi = at[last+1]
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		cp, err := playout(ctx, ev, g, r.PlayoutDepth, mid, target)
		if err != nil {
			return err
		}
		step()
		if cp.MaxTile >= target {
			lo = mid
		} else {
			hi = mid
		}
	}
	// The move from the board after lo moves is move lo+1.
	tp := lo + 1
	r.TurningPoint, r.Target = &tp, target
	return nil
}

// playout is what the AI searching depth deep reaches from the board
// after from moves of g, playing on with g's generator; it stops at the game's end, after
// MaxPlayout moves, or once it makes a tile of target (0: never).
func playout(ctx context.Context, ev Evaluator, g Game, depth, from, target int) (Checkpoint, error) {
	eg, err := g.Generator.Replay(g.Size, g.Seed, g.Dirs[:from])
	if err != nil {
		return Checkpoint{}, fmt.Errorf("review playout from move %d: %w", from, err)
	}
	cp := Checkpoint{After: from}
	for !eg.Over() && (target == 0 || eg.MaxTile() < target) {
		if cp.Moves == MaxPlayout {
			cp.Capped = true
			break
		}
		e, err := ev.Evaluate(ctx, eg.Board(), depth)
		if err != nil {
			return Checkpoint{}, fmt.Errorf("review playout from move %d: %w", from, err)
		}
		d, _, ok := e.Best()
		if !ok {
			return Checkpoint{}, errPlayout
		}
		eg.Move(d)
		cp.Moves++
	}
	cp.Score, cp.MaxTile = eg.Score(), eg.MaxTile()
	return cp, nil
}
