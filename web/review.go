package web

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/review"
)

// Reviews is what the game page reads of the AI's reviews
// (docs/review.md): a Games that is one (*game.Service) shows a game's
// stored review under its replay. The site never has a review made: a
// visitor costs no search; `review GAME` over SSH makes one.
type Reviews interface {
	StoredReview(ctx context.Context, id int64) (game.Reviewed, error)
}

// The chart's box, in the SVG's own units: the page scales it to its
// width.
const (
	chartWidth  = 600
	chartHeight = 120
	chartMargin = 6
	// mistakesListed bounds the list under the chart: a game played at
	// random has hundreds.
	mistakesListed = 100
	// reviewRecheck is how long a page takes the store's "not reviewed"
	// for an answer: looking costs a read of the game's every move, and a
	// busy game page would otherwise pay it on every view.
	reviewRecheck = time.Minute
)

// reviewView is the review part of the game page.
type reviewView struct {
	Accuracy      string
	Counts        review.Counts
	TurningPoint  int // 0: none
	Target        int
	Width, Height int
	Points        string // the polyline of the evaluation
	Marks         []chartMark
	Mistakes      []mistakeView
	More          int // mistakes not listed
}

// chartMark is a mistake or a blunder on the chart. It is no link: the
// chart is one image to a screen reader, and the list under it has the
// links.
type chartMark struct {
	X, Y  string
	Class string
	Move  int
	Label string
}

// mistakeView is a row of the list of mistakes.
type mistakeView struct {
	Move                           int
	Mark, Played, Best, Loss, Kind string
}

// gamePage is the game page's data: the replay, and its review if one is
// stored.
type gamePage struct {
	replayView
	Review *reviewView
}

// reviewOf is game d's stored review, read once and kept with the
// replay: a stored review changes only with review.Version, that is with
// a new binary.
func (s *Site) reviewOf(ctx context.Context, d *replayData) *reviewView {
	if v := d.review.Load(); v != nil {
		return v
	}
	rs, ok := s.cfg.Games.(Reviews)
	if !ok || time.Since(time.Unix(0, d.reviewLooked.Load())) < reviewRecheck {
		return nil
	}
	got, err := rs.StoredReview(ctx, d.info.GameID)
	if err != nil {
		d.reviewLooked.Store(time.Now().UnixNano())
		return nil // none yet, or unreadable: the page shows the replay alone
	}
	r, err := got.Parse()
	if err != nil {
		s.log.Error("web: stored review", "game", d.info.GameID, "err", err)
		return nil
	}
	v := newReviewView(r)
	d.review.Store(v)
	return v
}

func newReviewView(r *review.Review) *reviewView {
	v := &reviewView{Accuracy: strconv.FormatFloat(r.Accuracy, 'f', 1, 64), Counts: r.Counts, Target: r.Target,
		Width: chartWidth, Height: chartHeight}
	if r.TurningPoint != nil {
		v.TurningPoint = *r.TurningPoint
	}
	n := len(r.Moves)
	if n == 0 {
		return v
	}
	values := r.Values()
	lo, hi := slices.Min(values), slices.Max(values)
	x := func(i int) float64 {
		if n == 1 {
			return chartWidth / 2
		}
		return chartMargin + float64(i)*(chartWidth-2*chartMargin)/float64(n-1)
	}
	y := func(val float64) float64 {
		if hi == lo {
			return chartHeight / 2
		}
		return chartMargin + (hi-val)/(hi-lo)*(chartHeight-2*chartMargin)
	}
	num := func(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }
	// At most one point per unit of width, each its positions' lowest:
	// a drop shows however long the game.
	var pts strings.Builder
	cells := min(n, chartWidth)
	for c := range cells {
		from, to := c*n/cells, (c+1)*n/cells
		low, at := values[from], from
		for i := from; i < to; i++ {
			if values[i] < low {
				low, at = values[i], i
			}
		}
		if c > 0 {
			pts.WriteByte(' ')
		}
		pts.WriteString(num(x(at)) + "," + num(y(low)))
	}
	v.Points = pts.String()
	for _, m := range r.Moves {
		if m.Class < review.Mistake {
			continue
		}
		i := m.Number - 1
		loss := strconv.FormatFloat(m.Loss*100, 'f', 2, 64)
		v.Marks = append(v.Marks, chartMark{X: num(x(i)), Y: num(y(values[i])), Class: m.Class.String(), Move: m.Number,
			Label: "move " + strconv.Itoa(m.Number) + m.Class.Mark() + " " + m.PlayedName + ", −" + loss + "%"})
		if len(v.Mistakes) == mistakesListed {
			v.More++
			continue
		}
		v.Mistakes = append(v.Mistakes, mistakeView{Move: m.Number, Mark: m.Class.Mark(), Played: m.PlayedName, Best: m.BestName,
			Loss: loss, Kind: m.Class.String()})
	}
	return v
}
