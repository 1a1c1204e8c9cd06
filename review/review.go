// Package review judges a stored game move by move, as chess sites analyse
// a game: for every position the AI's value of each legal move at a fixed
// search depth, the loss of the move played against the best as a share of
// the position's value, a class per move (best, good, inaccuracy, mistake,
// blunder), the game's accuracy, what the AI reaches from a few positions
// of the game with the game's own tiles to come ("with the same dice"),
// and the turning point: the move after which that could no longer be
// reached. docs/review.md is the reference.
//
// A review depends only on the game (size, generator, seed, moves) and
// Version: every search is at a fixed depth with no time bound, so the
// same game gives the same review on any machine and under any load. The
// package does no I/O; its searches go to the Evaluator it is given (the
// server's AI pool at its lowest priority, or a lone ai.Searcher).
package review

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/engine/ai"
)

// Version is the version of the review's method: the depths, thresholds,
// checkpoints and accuracy below. A stored review of another version is
// made again; change it whenever a change here would change a review.
const Version = 1

const (
	// EvalDepth is how many player moves past each move the review's
	// search looks on 4×4: one deeper than the playouts' policy, so that
	// the judge sees further than the player it measures.
	EvalDepth = 3
	// PlayoutDepth is the depth of the AI that plays on "with the same
	// dice" on 4×4: shallow, because a playout may run for thousands of
	// moves.
	PlayoutDepth = 2
	// Checkpoints is how many positions, evenly spaced from the first,
	// the AI plays on from.
	Checkpoints = 8
	// MaxPlayout caps the moves of one playout, which bounds a review's
	// cost whatever the game.
	MaxPlayout = 20000
)

// The classes' thresholds, on a move's loss (a share of the position's
// value). They were set from the losses of the depth-2 AI's own moves
// (nearly all good) and of random moves (many inaccuracies and mistakes):
// see docs/review.md.
const (
	GoodBelow       = 0.002
	InaccuracyBelow = 0.01
	MistakeBelow    = 0.05
	// accuracyScale is the loss at which a move's accuracy falls to 1/e
	// of 100.
	accuracyScale = 0.005
)

// Class is a move's verdict.
type Class uint8

const (
	Best       Class = iota // the search's own choice, or as good
	Good                    // a loss under GoodBelow
	Inaccuracy              // ?!: a loss under InaccuracyBelow
	Mistake                 // ?: a loss under MistakeBelow
	Blunder                 // ??: a loss of MistakeBelow or more
)

var classNames = [...]string{"best", "good", "inaccuracy", "mistake", "blunder"}

func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return fmt.Sprintf("class(%d)", uint8(c))
}

// Mark is the class's sign after a move, as chess annotates it: "?!",
// "?", "??", or "" for best and good moves.
func (c Class) Mark() string {
	switch c {
	case Inaccuracy:
		return "?!"
	case Mistake:
		return "?"
	case Blunder:
		return "??"
	}
	return ""
}

// MarshalText writes the class's name, for JSON.
func (c Class) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText reads a class's name.
func (c *Class) UnmarshalText(b []byte) error {
	for i, n := range classNames {
		if string(b) == n {
			*c = Class(i)
			return nil
		}
	}
	return fmt.Errorf("review: unknown class %q", b)
}

// Depths are the review's two search depths on a board of size: 4×4's
// on the bitboard, one less on 3×3 and less again from 5×5 up, where the
// search runs on engine.Board, slower per node by an order of magnitude
// and with many more cells to place a tile in (a depth-3 evaluation of
// an 8×8 board takes minutes).
func Depths(size int) (eval, playout int) {
	switch {
	case size == 4:
		return EvalDepth, PlayoutDepth
	case size < 4:
		return EvalDepth - 1, PlayoutDepth - 1
	}
	return EvalDepth - 2, PlayoutDepth - 2
}

// ClassOf is the class of a move that loses loss.
func ClassOf(loss float64) Class {
	switch {
	case loss <= 0:
		return Best
	case loss < GoodBelow:
		return Good
	case loss < InaccuracyBelow:
		return Inaccuracy
	case loss < MistakeBelow:
		return Mistake
	}
	return Blunder
}

// Evaluator scores every legal move of a board at a fixed depth:
// *ai.Pool (at its Review priority) and *ai.Searcher.
type Evaluator interface {
	Evaluate(ctx context.Context, board engine.Board, depth int) (ai.Evaluation, error)
}

// Game is what a review is made from.
type Game struct {
	Size      int
	Generator engine.Generator
	Seed      uint64
	Dirs      []engine.Direction
	// Ended: the game is over or abandoned. The AI plays on "with the
	// same dice" only in an ended game: in one still in play its tiles to
	// come are the player's future.
	Ended bool
}

// Review is the review of one game; its JSON form is the contract of
// `review --json` (docs/review.md).
type Review struct {
	Version      int     `json:"version"`
	EvalDepth    int     `json:"eval_depth"`
	PlayoutDepth int     `json:"playout_depth"`
	Size         int     `json:"size"`
	Score        int     `json:"score"`
	MaxTile      int     `json:"max_tile"`
	Ended        bool    `json:"ended"`
	Accuracy     float64 `json:"accuracy"`
	Counts       Counts  `json:"counts"`
	// TurningPoint is the number of the move after which the AI, with the
	// game's own tiles, could no longer reach the largest tile it reached
	// from earlier; nil when there is none (or the game is in play).
	TurningPoint *int         `json:"turning_point"`
	Target       int          `json:"target,omitempty"` // the tile lost at the turning point
	Checkpoints  []Checkpoint `json:"checkpoints"`
	Moves        []Move       `json:"moves"`
}

// Counts is how many moves fell in each class.
type Counts struct {
	Best       int `json:"best"`
	Good       int `json:"good"`
	Inaccuracy int `json:"inaccuracy"`
	Mistake    int `json:"mistake"`
	Blunder    int `json:"blunder"`
}

func (c *Counts) add(cl Class) {
	switch cl {
	case Best:
		c.Best++
	case Good:
		c.Good++
	case Inaccuracy:
		c.Inaccuracy++
	case Mistake:
		c.Mistake++
	case Blunder:
		c.Blunder++
	}
}

// Move is the review of one move: Number is its place in the game (1 for
// the first, as the replay counts them), played from the board after
// Number-1 moves.
type Move struct {
	Number int              `json:"move"`
	Played engine.Direction `json:"-"`
	Best   engine.Direction `json:"-"`
	// Values holds each move's value, in engine.Directions() order (up,
	// right, down, left); nil for a move that changes nothing.
	Values [4]*float64 `json:"values"`
	Loss   float64     `json:"loss"`
	Class  Class       `json:"class"`
	Forced bool        `json:"forced,omitempty"` // the only legal move
	// PlayedName and BestName are Played and Best for JSON.
	PlayedName string `json:"played"`
	BestName   string `json:"best"`
}

// Checkpoint is what the AI reaches playing on from the board after After
// moves, with the tiles the game's generator gives next.
type Checkpoint struct {
	After   int  `json:"after"`
	Score   int  `json:"score"`
	MaxTile int  `json:"max_tile"`
	Moves   int  `json:"moves"`            // the moves the AI played on
	Capped  bool `json:"capped,omitempty"` // stopped at MaxPlayout moves
}

// Progress is told how far a review is, from 0 to 1, as it goes.
type Progress func(done float64)

// evalShare is the share of the progress the evaluations take; the
// playouts take the rest.
const evalShare = 0.8

// Make reviews g, asking ev for every search. It stops with ctx's error
// when ctx ends. progress may be nil.
func Make(ctx context.Context, ev Evaluator, g Game, progress Progress) (*Review, error) {
	if progress == nil {
		progress = func(float64) {}
	}
	eg, err := g.Generator.NewGame(g.Size, g.Seed)
	if err != nil {
		return nil, fmt.Errorf("review: %w", err)
	}
	evalDepth, playoutDepth := Depths(g.Size)
	r := &Review{Version: Version, EvalDepth: evalDepth, PlayoutDepth: playoutDepth, Size: g.Size, Ended: g.Ended,
		Moves: make([]Move, 0, len(g.Dirs)), Checkpoints: []Checkpoint{}}
	var accSum float64
	accN := 0
	for i, d := range g.Dirs {
		e, err := ev.Evaluate(ctx, eg.Board(), evalDepth)
		if err != nil {
			return nil, fmt.Errorf("review move %d: %w", i, err)
		}
		m, err := judge(i, d, e)
		if err != nil {
			return nil, err
		}
		r.Moves = append(r.Moves, m)
		r.Counts.add(m.Class)
		if !m.Forced {
			accSum += moveAccuracy(m.Loss)
			accN++
		}
		eg.Move(d)
		progress(evalShare * float64(i+1) / float64(len(g.Dirs)))
	}
	r.Score, r.MaxTile = eg.Score(), eg.MaxTile()
	r.Accuracy = 100
	if accN > 0 {
		r.Accuracy = round(accSum/float64(accN), 10)
	}
	if g.Ended && len(g.Dirs) > 0 {
		if err := sameDice(ctx, ev, g, r, progress); err != nil {
			return nil, err
		}
	}
	progress(1)
	return r, nil
}

// judge is the review of move i, d, from a board e evaluates.
func judge(i int, d engine.Direction, e ai.Evaluation) (Move, error) {
	best, bestValue, ok := e.Best()
	if !ok || !d.Valid() || !e.Legal[d] {
		return Move{}, fmt.Errorf("review move %d: %v changes nothing on the replayed board", i, d)
	}
	m := Move{Number: i + 1, Played: d, Best: best, PlayedName: d.String(), BestName: best.String()}
	legal := 0
	for _, x := range engine.Directions() {
		if e.Legal[x] {
			v := round(e.Values[x], 1e3)
			m.Values[x] = &v
			legal++
		}
	}
	m.Forced = legal == 1
	if played := e.Values[d]; bestValue > 0 && played < bestValue {
		m.Loss = round((bestValue-played)/bestValue, 1e6)
	}
	m.Class = ClassOf(m.Loss)
	return m, nil
}

// moveAccuracy is 100 for the best move, falling exponentially with the
// loss: lichess's accuracy has the same shape over its win chances.
func moveAccuracy(loss float64) float64 { return 100 * math.Exp(-loss/accuracyScale) }

// round rounds x to 1/per: the JSON carries no digits that mean nothing.
func round(x, per float64) float64 { return math.Round(x*per) / per }

// errPlayout is an evaluation that found no move on a board that can move:
// only a broken Evaluator does that.
var errPlayout = errors.New("review: the evaluator gave no move on a live board")

// Parse reads a review from its JSON, as Make's review marshals.
func Parse(b []byte) (*Review, error) {
	var r Review
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("read review: %w", err)
	}
	for i := range r.Moves {
		m := &r.Moves[i]
		var err error
		if m.Played, err = engine.ParseDirection(m.PlayedName); err != nil {
			return nil, fmt.Errorf("read review move %d: %w", i, err)
		}
		if m.Best, err = engine.ParseDirection(m.BestName); err != nil {
			return nil, fmt.Errorf("read review move %d: %w", i, err)
		}
	}
	return &r, nil
}

// ParseAccuracy reads only a review's accuracy from its JSON, as Make's
// review marshals, and stops there: the moves that follow it in a long
// game's review are most of its bytes.
func ParseAccuracy(b []byte) (float64, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0, errors.New("read review's accuracy: not a JSON object")
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return 0, fmt.Errorf("read review's accuracy: %w", err)
		}
		if key == "accuracy" {
			var a float64
			if err := dec.Decode(&a); err != nil {
				return 0, fmt.Errorf("read review's accuracy: %w", err)
			}
			return a, nil
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return 0, fmt.Errorf("read review's accuracy: %w", err)
		}
	}
	return 0, errors.New("read review's accuracy: it has none")
}

// Values is the evaluation of every position the review judged, in
// order: the value of its best move (what a chart of the game draws).
func (r *Review) Values() []float64 {
	out := make([]float64, len(r.Moves))
	for i, m := range r.Moves {
		for _, v := range m.Values {
			if v != nil && *v > out[i] {
				out[i] = *v
			}
		}
	}
	return out
}
