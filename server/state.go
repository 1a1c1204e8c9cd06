package server

import (
	"github.com/ssh2048/ssh2048/engine"
)

// State is one line of the bot protocol: the board and score after the last
// command. Field names are a public contract (README, "Bot protocol").
type State struct {
	Board  [][]int `json:"board"`  // tile values, row 0 at the top, 0 = empty
	Score  int     `json:"score"`  // sum of all merges so far
	Moves  int     `json:"moves"`  // moves that changed the board
	Moved  bool    `json:"moved"`  // the last command changed the board
	Gained int     `json:"gained"` // points the last command scored
	Won    bool    `json:"won"`    // the target tile has been reached
	Over   bool    `json:"over"`   // no move can change the board: the game has ended
}

// errorLine is the line sent before the unchanged state when a command is
// not understood.
type errorLine struct {
	Error string `json:"error"`
}

// stateOf describes g after a command that produced res.
func stateOf(g *engine.Game, res engine.Result) State {
	b := g.Board()
	n := b.Size()
	rows := make([][]int, n)
	for r := range rows {
		rows[r] = make([]int, n)
		for c := range rows[r] {
			rows[r][c] = b.Value(r, c)
		}
	}
	return State{
		Board:  rows,
		Score:  g.Score(),
		Moves:  g.Moves(),
		Moved:  res.Moved,
		Gained: res.Gained,
		Won:    g.Won(),
		Over:   g.Over(),
	}
}
