package sqlite

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/store"
)

// TestMovesOnANewWriteConnection: the move's statement is prepared on the
// write connection itself (moveStatement), so a connection database/sql
// opens anew must get one of its own, and a refused move must still write
// nothing.
func TestMovesOnANewWriteConnection(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	p := addPlayer(t, s, "reconnect")
	g, err := s.NewGame(ctx, p.ID, 4, store.KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 1))
	// Every group now takes a connection of its own.
	s.write.SetConnMaxLifetime(time.Nanosecond)
	seen := map[any]bool{}
	for range 5 {
		time.Sleep(time.Millisecond)
		if err := playMove(ctx, s, g, rng); err != nil {
			t.Fatal(err)
		}
		seen[s.moveStmt.on] = true
	}
	if len(seen) < 2 {
		t.Fatalf("the moves ran on %d connection(s), want a new one for each group", len(seen))
	}
	if n := countMoves(t, s, g.ID); n != 5 {
		t.Fatalf("stored %d moves, want 5", n)
	}
	// A stale move (its number already taken) is refused as before.
	st := store.StateOf(g.Engine)
	err = s.AppendMove(ctx, g.ID, 2, 0, store.MoveState{Score: st.Score, MaxTile: st.MaxTile, Moves: 3, Board: st.Board})
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("stale move: %v, want ErrConflict", err)
	}
	if n := countMoves(t, s, g.ID); n != 5 {
		t.Fatalf("after the stale move, %d moves stored, want 5", n)
	}
}
