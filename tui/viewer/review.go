package viewer

import (
	"context"
	"errors"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/review"
)

// Reviews is what a replay needs to show the AI's review of its game
// (docs/review.md): Games that are one (*game.Service) give their
// replays the review keys; others replay without.
type Reviews interface {
	Review(ctx context.Context, id int64, who game.Player, from netip.Addr, progress func(float64)) (game.Reviewed, error)
	StoredReview(ctx context.Context, id int64) (game.Reviewed, error)
}

// reviewing is a replay's review: the one shown, or the one being made.
type reviewing struct {
	svc    Reviews // nil: the replay shows no review
	ctx    context.Context
	who    game.Player
	from   netip.Addr // who's address, which the reviews being made count against
	rev    *review.Review
	making bool
	done   float64           // of the review being made
	news   chan reviewUpdate // from the goroutine making it
}

// reviewUpdate is news of a review being made: its progress, or the end.
type reviewUpdate struct {
	progress float64
	rev      *review.Review
	err      error
	end      bool
}

// reviewMsg carries a reviewUpdate to the replay r.
type reviewMsg struct {
	r *replayer
	u reviewUpdate
}

// stored asks for the game's stored review, if there is one.
func (rp *replayer) storedReview() tea.Cmd {
	rv := &rp.review
	if rv.svc == nil {
		return nil
	}
	ctx, id := rv.ctx, rp.r.GameID
	return func() tea.Msg {
		got, err := rv.svc.StoredReview(ctx, id)
		if err != nil {
			return nil // none yet: `a` asks for one
		}
		r, err := got.Parse()
		return reviewMsg{rp, reviewUpdate{rev: r, err: err, end: true}}
	}
}

// makeReview asks the AI for the game's review, which takes a while: its
// progress comes as reviewMsgs until the end.
func (rp *replayer) makeReview() tea.Cmd {
	rv := &rp.review
	if rv.svc == nil || rv.rev != nil || rv.making {
		return nil
	}
	rv.making, rv.done = true, 0
	rv.news = make(chan reviewUpdate, 1)
	news, ctx, id, who, from := rv.news, rv.ctx, rp.r.GameID, rv.who, rv.from
	go func() {
		got, err := rv.svc.Review(ctx, id, who, from, func(f float64) {
			select { // the screen takes the newest; none is worth waiting for
			case news <- reviewUpdate{progress: f}:
			default:
			}
		})
		var r *review.Review
		if err == nil {
			r, err = got.Parse()
		}
		// The end must arrive: take a progress the screen has not read.
		select {
		case <-news:
		default:
		}
		news <- reviewUpdate{rev: r, err: err, end: true}
	}()
	return rp.nextReviewNews()
}

func (rp *replayer) nextReviewNews() tea.Cmd {
	news := rp.review.news
	return func() tea.Msg { return reviewMsg{rp, <-news} }
}

// reviewed takes news of the review.
func (rp *replayer) reviewed(u reviewUpdate) tea.Cmd {
	rv := &rp.review
	switch {
	case !u.end:
		rv.done = u.progress
		return rp.nextReviewNews()
	case u.err != nil:
		rv.making = false
		rp.notice = reviewErrorText(u.err)
	default:
		rv.making, rv.rev = false, u.rev
	}
	return nil
}

// reviewErrorText is what the player is told when a review fails.
func reviewErrorText(err error) string {
	switch {
	case errors.Is(err, game.ErrNotYours):
		return "Only its player may review a game in play (not in the daily or a race)."
	case errors.Is(err, game.ErrReviewBusy):
		return "A review you asked for is still being made; try again once it is done."
	case errors.Is(err, game.ErrReviewsHere):
		return "Too many reviews asked for from your address are still being made; try again once one is done."
	case errors.Is(err, game.ErrTooManyReviews):
		return "Too many reviews are being made on this server; try again later."
	case errors.Is(err, game.ErrNoReviews):
		return "This server runs no AI to review games."
	case errors.Is(err, game.ErrDailyOn):
		return "Today's daily is reviewed once the day is over."
	case errors.Is(err, game.ErrRaceOn):
		return "A race's games are reviewed once the race is over."
	}
	return "The review could not be made; try again later."
}

// reviewedMove is the review of the move that led to the board shown.
func (rp *replayer) reviewedMove() (review.Move, bool) {
	rv := rp.review.rev
	if rv == nil || rp.at == 0 || rp.at > len(rv.Moves) {
		return review.Move{}, false
	}
	return rv.Moves[rp.at-1], true
}

// nextMistake goes to the next move classed a mistake or a blunder after
// the one shown, from the start again past the last.
func (rp *replayer) nextMistake() {
	rv := rp.review.rev
	if rv == nil {
		return
	}
	n := len(rv.Moves)
	for k := 1; k <= n; k++ {
		i := (rp.at + k - 1) % n // move i+1: shown after i+1 moves
		if rv.Moves[i].Class >= review.Mistake {
			rp.stop()
			rp.goTo(i + 1)
			return
		}
	}
	rp.notice = "No mistakes in this game."
}

// turningPoint goes to the turning point: the board after that move.
func (rp *replayer) turningPoint() {
	rv := rp.review.rev
	if rv == nil {
		return
	}
	if rv.TurningPoint == nil {
		rp.notice = "No turning point: the game reached what the AI reaches from it."
		return
	}
	rp.stop()
	rp.goTo(*rv.TurningPoint)
}

// reviewLines are the lines the review adds under the board: the move
// shown and the AI's choice, and the evaluation's sparkline; or the
// progress of the review being made.
func (rp *replayer) reviewLines() []string {
	rv := &rp.review
	switch {
	case rv.making:
		return []string{progressBar("Reviewing", rv.done, min(rp.p.Width, 40))}
	case rv.rev == nil:
		return nil
	}
	r := rv.rev
	var line string
	if m, ok := rp.reviewedMove(); ok {
		line = "Move " + strconv.Itoa(m.Number) + ": " + m.PlayedName + m.Class.Mark() + " " + m.Class.String()
		if m.Played != m.Best {
			line += " (−" + strconv.FormatFloat(m.Loss*100, 'f', 2, 64) + "%) · AI: " + m.BestName
		}
		if r.TurningPoint != nil && *r.TurningPoint == m.Number {
			line += " · turning point"
		}
	} else {
		line = "Accuracy " + strconv.FormatFloat(r.Accuracy, 'f', 1, 64) + " · ?! " + strconv.Itoa(r.Counts.Inaccuracy) +
			" · ? " + strconv.Itoa(r.Counts.Mistake) + " · ?? " + strconv.Itoa(r.Counts.Blunder)
		if r.TurningPoint != nil {
			line += " · turning point: move " + strconv.Itoa(*r.TurningPoint)
		}
	}
	return []string{line, sparkline(r, rp.at, min(rp.p.Width, 64))}
}

// progressBar is "Reviewing ████░░░░ 42%" in width cells.
func progressBar(label string, done float64, width int) string {
	pct := strconv.Itoa(int(done*100)) + "%"
	cells := max(width-len(label)-len(pct)-2, 4)
	full := int(done * float64(cells))
	return label + " " + strings.Repeat("█", full) + strings.Repeat("░", cells-full) + " " + pct
}

var sparks = []rune("▁▂▃▄▅▆▇█")

// sparkline draws the evaluation over the game, width cells at most: each
// cell the lowest value of the positions it stands for (a drop shows
// however many moves a cell holds), and the cell of the board shown as │.
func sparkline(r *review.Review, at, width int) string {
	n := len(r.Moves)
	if n == 0 || width <= 0 {
		return ""
	}
	values := r.Values()
	lo, hi := slices.Min(values), slices.Max(values)
	cells := min(n, width)
	var b strings.Builder
	shown := min(at, n-1) * cells / n
	for c := range cells {
		from, to := c*n/cells, (c+1)*n/cells
		v := values[from]
		for _, x := range values[from:to] {
			v = min(v, x)
		}
		if c == shown {
			b.WriteRune('│')
			continue
		}
		k := 0
		if hi > lo {
			k = int((v - lo) / (hi - lo) * float64(len(sparks)-1))
		}
		b.WriteRune(sparks[k])
	}
	return b.String()
}
