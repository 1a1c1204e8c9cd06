package engine

import (
	"fmt"
	"math/rand/v2"
)

// WinExponent returns the exponent of the tile that wins a game of the given
// size: 2048 (2^11) on 4×4, as in the original. Smaller boards have room for
// fewer tiles and larger ones for more, so the target halves or doubles
// with each step in size: 3×3 256, 5×5 4096, 6×6 8192, 7×7 16384, 8×8 32768.
func WinExponent(size int) uint8 {
	if size == 3 {
		return 8
	}
	return uint8(11 + size - 4)
}

// Spawn describes the tile a move added.
type Spawn struct {
	Row, Col int
	Exp      uint8
}

// Result describes one call to Game.Move.
type Result struct {
	Moved  bool  // the board changed; only then was a tile spawned
	Gained int   // points from the merges of this move
	Spawn  Spawn // the new tile, when Moved
}

// Game is one game of 2048: a board, its score and the random source that
// places new tiles. The same size, seed and directions always give the same
// game. A Game is not safe for concurrent use.
type Game struct {
	board Board
	seed  uint64
	rng   *rand.Rand
	score int
	moves int
}

// NewGame starts a game on an empty size×size board with two random tiles.
func NewGame(size int, seed uint64) (*Game, error) {
	b, err := NewBoard(size)
	if err != nil {
		return nil, err
	}
	g := &Game{board: b, seed: seed, rng: rand.New(rand.NewPCG(seed, seed^0x2048))}
	g.spawn()
	g.spawn()
	return g, nil
}

// Replay rebuilds a game from its size, seed and the directions played.
// Directions that change nothing are allowed and, as in play, do nothing.
func Replay(size int, seed uint64, dirs []Direction) (*Game, error) {
	g, err := NewGame(size, seed)
	if err != nil {
		return nil, err
	}
	for i, d := range dirs {
		if !d.Valid() {
			return nil, fmt.Errorf("replay move %d: %w: byte %d", i, ErrDirection, d)
		}
		g.Move(d)
	}
	return g, nil
}

// spawn puts a 2 (probability 0.9) or a 4 (0.1) in a uniformly random empty
// cell, and returns where. The board must have an empty cell.
func (g *Game) spawn() Spawn {
	n := g.board.Size()
	pick := g.rng.IntN(g.board.Empty())
	exp := uint8(1)
	if g.rng.IntN(10) == 0 {
		exp = 2
	}
	for row := range n {
		for col := range n {
			if g.board.At(row, col) != 0 {
				continue
			}
			if pick == 0 {
				g.board.Set(row, col, exp)
				return Spawn{Row: row, Col: col, Exp: exp}
			}
			pick--
		}
	}
	panic("engine: spawn on a full board")
}

// Move plays direction d. A move that changes nothing spawns nothing and is
// not counted.
func (g *Game) Move(d Direction) Result {
	gained, moved := g.board.Move(d)
	if !moved {
		return Result{}
	}
	g.score += gained
	g.moves++
	return Result{Moved: true, Gained: gained, Spawn: g.spawn()}
}

// Board returns a copy of the current board.
func (g *Game) Board() Board { return g.board }

// Size returns the board size N.
func (g *Game) Size() int { return g.board.Size() }

// Seed returns the seed the game was started with.
func (g *Game) Seed() uint64 { return g.seed }

// Score returns the sum of all merged tiles so far.
func (g *Game) Score() int { return g.score }

// Moves returns the number of moves that changed the board.
func (g *Game) Moves() int { return g.moves }

// Won reports whether the target tile has been reached; play may go on.
// Tiles only ever grow, so the largest tile on the board says it all.
func (g *Game) Won() bool { return g.board.MaxExponent() >= WinExponent(g.board.Size()) }

// Over reports whether no move can change the board.
func (g *Game) Over() bool { return !g.board.CanMove() }

// MaxTile returns the value of the largest tile.
func (g *Game) MaxTile() int { return Value(g.board.MaxExponent()) }

// EncodeMoves packs directions one byte each, the form games are stored in.
func EncodeMoves(dirs []Direction) []byte {
	out := make([]byte, len(dirs))
	for i, d := range dirs {
		out[i] = byte(d)
	}
	return out
}

// DecodeMoves unpacks bytes written by EncodeMoves.
func DecodeMoves(b []byte) ([]Direction, error) {
	out := make([]Direction, len(b))
	for i, c := range b {
		out[i] = Direction(c)
		if !out[i].Valid() {
			return nil, fmt.Errorf("decode move %d: %w: byte %d", i, ErrDirection, c)
		}
	}
	return out, nil
}
