package command

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/review"
	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/wire"
)

// reviewCommand is `review GAME [--json]`: the AI's review of a game
// (docs/review.md).
func reviewCommand() Command {
	return Command{
		Name:    "review",
		Args:    "[--json] GAME",
		Summary: "the AI's review of a game: accuracy, mistakes, the turning point (docs/review.md)",
		run:     (*Table).runReview,
	}
}

// reviewTimeout bounds the wait for a review being made: the longest
// games take minutes at the lowest priority on a busy server. A review of
// an ended game goes on after it, to be stored for the next ask.
const reviewTimeout = 30 * time.Minute

// worstShown is how many of the worst moves the summary shows.
const worstShown = 5

func (t *Table) runReview(sess *session.Session, fs *commandFlags, args []string) int {
	asJSON := fs.Bool("json", false, "print the whole review, move by move, as one JSON object")
	id, code, ok := gameArg(sess, fs, args)
	if !ok {
		return code
	}
	ctx, cancel := context.WithTimeout(sess.Context(), reviewTimeout)
	defer cancel()
	// A notice (the server restarting, say) ends the wait, as it ends
	// every session: a review that goes on is stored for the next ask.
	noticed := make(chan session.Notice, 1)
	go func() {
		select {
		case n := <-sess.Notices:
			noticed <- n
			cancel()
		case <-ctx.Done():
		}
	}()
	progress, stop := progressLines(sess.Stderr())
	r, err := t.games.Review(ctx, id, sess.Player, session.RemoteIP(sess.RemoteAddr()), progress)
	stop()
	if err != nil {
		select {
		case n := <-noticed:
			return t.sayGoodbye(sess, n)
		default:
		}
	}
	if code, ok := t.reviewError(sess, id, err); !ok {
		return code
	}
	if *asJSON {
		_, _ = sess.Write(append(r.JSON, '\n'))
		return wire.ExitOK
	}
	rv, err := r.Parse()
	if err != nil {
		return t.gameErrorCode(sess, id, err)
	}
	rctx, rcancel := context.WithTimeout(sess.Context(), readTimeout)
	defer rcancel()
	replay, err := t.games.Replay(rctx, id)
	if code, ok := t.gameError(sess, "review", id, err); !ok {
		return code
	}
	writeSummary(sess, r, rv, replay.Boards)
	return wire.ExitOK
}

// gameErrorCode is gameError for an error that has no case of its own.
func (t *Table) gameErrorCode(sess *session.Session, id int64, err error) int {
	code, _ := t.gameError(sess, "review", id, err)
	return code
}

// reviewError is gameError with review's own cases.
func (t *Table) reviewError(sess *session.Session, id int64, err error) (int, bool) {
	switch {
	case errors.Is(err, game.ErrNotYours):
		fmt.Fprintf(sess.Stderr(), "review: game %d is still being played; only its player may review it before it ends (and not in the daily or a race).\n", id)
		return wire.ExitInPlay, false
	case errors.Is(err, game.ErrReviewBusy):
		fmt.Fprintf(sess.Stderr(), "review: a review you asked for is still being made; ask again once it is done.\n")
		return wire.ExitError, false
	case errors.Is(err, game.ErrReviewsHere):
		fmt.Fprintf(sess.Stderr(), "review: too many reviews asked for from your address are still being made; ask again once one is done.\n")
		return wire.ExitError, false
	case errors.Is(err, game.ErrTooManyReviews):
		fmt.Fprintf(sess.Stderr(), "review: too many reviews are being made on this server; ask again later.\n")
		return wire.ExitError, false
	case errors.Is(err, game.ErrNoReviews):
		fmt.Fprintf(sess.Stderr(), "review: game %d has not been reviewed, and this server runs no AI to review it.\n", id)
		return wire.ExitError, false
	case errors.Is(err, context.DeadlineExceeded):
		fmt.Fprintf(sess.Stderr(), "review: game %d is taking too long; it goes on being made: ask again later.\n", id)
		return wire.ExitError, false
	}
	return t.gameError(sess, "review", id, err)
}

// progressLines prints "review: N%" lines to w as a review is made, a
// line for every tenth, from a goroutine of its own: the review never
// waits for a slow client. stop ends it.
func progressLines(w io.Writer) (progress func(float64), stop func()) {
	latest := make(chan int, 1)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		shown := -1
		for {
			select {
			case p := <-latest:
				if p/10 > shown/10 || (p == 100 && shown != 100) {
					shown = p
					fmt.Fprintf(w, "review: %d%%\n", p)
				}
			case <-done:
				return
			}
		}
	}()
	progress = func(f float64) {
		p := int(f * 100)
		select {
		case latest <- p:
		default:
			select { // replace the one not yet shown with the newer
			case <-latest:
			default:
			}
			select {
			case latest <- p:
			default:
			}
		}
	}
	return progress, func() { close(done); <-finished }
}

// writeSummary prints the review's summary: the game, the accuracy and
// the classes, what the AI reaches with the same dice, the turning point
// and the worst moves with the board each was played on.
func writeSummary(w io.Writer, r game.Reviewed, rv *review.Review, boards []engine.Board) {
	var b strings.Builder
	fmt.Fprintf(&b, "Review of game %d by %s: %d×%d, %d moves, score %d, largest tile %d%s\n",
		r.GameID, r.Player, rv.Size, rv.Size, len(rv.Moves), rv.Score, rv.MaxTile, map[bool]string{true: "", false: " (still in play)"}[rv.Ended])
	c := rv.Counts
	fmt.Fprintf(&b, "Accuracy %.1f   best %d   good %d   inaccuracies ?! %d   mistakes ? %d   blunders ?? %d\n",
		rv.Accuracy, c.Best, c.Good, c.Inaccuracy, c.Mistake, c.Blunder)
	if len(rv.Checkpoints) > 0 {
		b.WriteString("With the same dice, the AI playing on reaches")
		for i, cp := range rv.Checkpoints {
			sep := ","
			if i == 0 {
				sep = ""
			}
			if cp.After == 0 {
				fmt.Fprintf(&b, "%s %d from the start", sep, cp.MaxTile)
			} else {
				fmt.Fprintf(&b, "%s %d after move %d", sep, cp.MaxTile, cp.After)
			}
		}
		b.WriteString("\n")
	}
	switch {
	case rv.TurningPoint != nil:
		m := rv.Moves[*rv.TurningPoint-1]
		fmt.Fprintf(&b, "Turning point: move %d (%s; the AI plays %s). Before it the AI reaches %d with the same dice; after it, no more.\n",
			m.Number, m.PlayedName, m.BestName, rv.Target)
	case rv.Ended && len(rv.Checkpoints) > 0:
		b.WriteString("No turning point: the game reached what the AI reaches from any of its checkpoints.\n")
	}
	worst := make([]review.Move, 0, len(rv.Moves))
	for _, m := range rv.Moves {
		if m.Loss > 0 {
			worst = append(worst, m)
		}
	}
	slices.SortStableFunc(worst, func(a, b review.Move) int {
		switch {
		case a.Loss > b.Loss:
			return -1
		case a.Loss < b.Loss:
			return 1
		}
		return 0
	})
	if len(worst) > worstShown {
		worst = worst[:worstShown]
	}
	if len(worst) > 0 {
		b.WriteString("Worst moves:\n")
	}
	for _, m := range worst {
		fmt.Fprintf(&b, "\nmove %d%s %s, the AI plays %s: loses %.2f%% (%s)\n", m.Number, m.Class.Mark(), m.PlayedName, m.BestName, m.Loss*100, m.Class)
		if m.Number-1 < len(boards) {
			writeBoard(&b, boards[m.Number-1])
		}
	}
	_, _ = io.WriteString(w, b.String())
}

// writeBoard prints board as a grid, "." for an empty cell.
func writeBoard(b *strings.Builder, board engine.Board) {
	n := board.Size()
	width := len(strconv.Itoa(engine.Value(board.MaxExponent())))
	for row := range n {
		b.WriteString("   ")
		for col := range n {
			cell := "."
			if e := board.At(row, col); e != 0 {
				cell = strconv.Itoa(engine.Value(e))
			}
			fmt.Fprintf(b, " %*s", width, cell)
		}
		b.WriteString("\n")
	}
}
