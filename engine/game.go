package engine

import (
	"crypto/sha256"
	"encoding/binary"
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

// Generator names the random source that places new tiles. A game keeps
// the generator it started with, and a stored game records it, so every
// game replays with its own whatever the newest generator is.
type Generator uint8

const (
	// PCG is math/rand/v2's PCG seeded with (seed, seed^0x2048): fast,
	// but not a cryptographic generator, so in principle the tiles a game
	// has shown could tell an observer the ones to come. Games stored
	// before ChaCha8 use it.
	PCG Generator = 1
	// ChaCha8 is math/rand/v2's ChaCha8, keyed with SHA-256 of the seed: a
	// cryptographic generator, so the tiles shown so far say nothing of
	// the next ones (short of trying every seed, 2^64 of them).
	ChaCha8 Generator = 2

	// Current is the generator new games start with.
	Current = ChaCha8
)

// Valid reports whether gen is a generator this package knows.
func (gen Generator) Valid() bool { return gen == PCG || gen == ChaCha8 }

func (gen Generator) String() string {
	switch gen {
	case PCG:
		return "pcg"
	case ChaCha8:
		return "chacha8"
	}
	return fmt.Sprintf("generator(%d)", uint8(gen))
}

// ParseGenerator reads a generator's name, as String writes it.
func ParseGenerator(s string) (Generator, error) {
	for _, gen := range []Generator{PCG, ChaCha8} {
		if s == gen.String() {
			return gen, nil
		}
	}
	return 0, fmt.Errorf("%q: %w", s, ErrGenerator)
}

// source returns the random source of a game with this seed.
func (gen Generator) source(seed uint64) (rand.Source, error) {
	switch gen {
	case PCG:
		return rand.NewPCG(seed, seed^0x2048), nil
	case ChaCha8:
		var in [8 + 14]byte
		binary.LittleEndian.PutUint64(in[:8], seed)
		copy(in[8:], "ssh2048 spawns")
		return rand.NewChaCha8(sha256.Sum256(in[:])), nil
	}
	return nil, fmt.Errorf("%v: %w", gen, ErrGenerator)
}

// Game is one game of 2048: a board, its score and the random source that
// places new tiles. The same size, generator, seed and directions always
// give the same game. A Game is not safe for concurrent use.
type Game struct {
	board Board
	gen   Generator
	seed  uint64
	src   rand.Source // *rand.PCG or *rand.ChaCha8: what CopyTo copies
	rng   *rand.Rand
	score int
	moves int
}

// NewGame starts a game on an empty size×size board with two random
// tiles, placed by gen from seed.
func (gen Generator) NewGame(size int, seed uint64) (*Game, error) {
	b, err := NewBoard(size)
	if err != nil {
		return nil, err
	}
	src, err := gen.source(seed)
	if err != nil {
		return nil, err
	}
	g := &Game{board: b, gen: gen, seed: seed, src: src, rng: rand.New(src)}
	g.spawn()
	g.spawn()
	return g, nil
}

// Replay rebuilds a game from its size, seed and the directions played.
// Directions that change nothing are allowed and, as in play, do nothing.
func (gen Generator) Replay(size int, seed uint64, dirs []Direction) (*Game, error) {
	g, err := gen.NewGame(size, seed)
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

// CopyTo makes dst a copy of g that plays on apart from it (the same
// moves give both the same tiles) and returns it; a nil dst is a new
// Game. It is what a caller keeps to go back to when a move it played
// cannot be kept (a store refused it): a dst kept from move to move is
// reused, with no allocation.
func (g *Game) CopyTo(dst *Game) *Game {
	if dst == nil {
		dst = new(Game)
	}
	src, rng := dst.src, dst.rng // dst's own, reused when of g's kind
	reused := true
	switch from := g.src.(type) {
	case *rand.PCG:
		to, ok := src.(*rand.PCG)
		if !ok {
			to, reused = new(rand.PCG), false
		}
		*to, src = *from, to
	case *rand.ChaCha8:
		to, ok := src.(*rand.ChaCha8)
		if !ok {
			to, reused = new(rand.ChaCha8), false
		}
		*to, src = *from, to
	default:
		panic(fmt.Sprintf("engine: copy of a game with a %T source", g.src))
	}
	if !reused || rng == nil {
		rng = rand.New(src) // a Rand holds nothing but its source
	}
	*dst = *g
	dst.src, dst.rng = src, rng
	return dst
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

// Generator returns the generator that places the game's tiles.
func (g *Game) Generator() Generator { return g.gen }

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
