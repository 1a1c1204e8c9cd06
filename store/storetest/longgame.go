package storetest

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/store"
)

// testLongGameReadsBack: a game of a few hundred moves reads back move for
// move at every count, and loads as played, whatever the store does as a
// game grows (SQLite keeps moves in chunks: store/sqlite/moves.go); a
// refused move at any count writes nothing.
func testLongGameReadsBack(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	p := addPlayer(t, s, "long")
	g, err := s.LoadOrCreateGame(ctx, p.ID, engine.MaxSize, store.KindBot)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(31, 15))
	var played []engine.Direction
	for seq := range 200 {
		// A move the store must refuse (the score would go down) first.
		if seq > 0 {
			st := store.StateOf(g.Engine)
			st.Moves++
			st.Score--
			if err := s.AppendMove(ctx, g.ID, seq, engine.Up, st); !errors.Is(err, store.ErrInvalid) {
				t.Fatalf("move %d with a lower score: %v, want ErrInvalid", seq, err)
			}
		}
		d, ok := movingDirection(g.Engine, rng)
		if !ok {
			t.Fatalf("the game is over after %d moves", seq)
		}
		g.Engine.Move(d)
		if err := s.AppendMove(ctx, g.ID, seq, d, store.StateOf(g.Engine)); err != nil {
			t.Fatal(err)
		}
		played = append(played, d)
		full, err := s.FullGame(ctx, g.ID)
		if err != nil || !slices.Equal(full.Dirs, played) {
			t.Fatalf("after %d moves FullGame reads %v (%v), want %v", seq+1, full.Dirs, err, played)
		}
	}
	loaded, err := s.LoadOrCreateGame(ctx, p.ID, engine.MaxSize, store.KindBot)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.ID != g.ID || store.StateOf(loaded.Engine) != store.StateOf(g.Engine) {
		t.Fatalf("loaded game %d at %+v , want game %d at %+v", loaded.ID, store.StateOf(loaded.Engine), g.ID, store.StateOf(g.Engine))
	}
}
