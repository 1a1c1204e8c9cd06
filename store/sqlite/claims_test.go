package sqlite

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/store"
)

// TestClaimsBetweenProcesses: two stores on one file are two processes
// (the server and `ssh2048 play`). A game loaded by the second is
// claimed from the first: the first's move with its older token is
// refused (store.ErrFenced) and nothing is written, the first is told of the
// takeover with the new token, and the second plays on. A claim by the
// same process tells no one.
func TestClaimsBetweenProcesses(t *testing.T) {
	ctx := context.Background()
	server := openStore(t)
	local, err := Open(ctx, server.Path()[:len(server.Path())-len(FileName)-1], WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { local.Close() })
	told := make(chan [2]int64, 4)
	server.OnTakeover(func(id, token int64) { told <- [2]int64{id, token} })

	p := addPlayer(t, server, "ann")
	g, err := server.LoadOrCreateGame(ctx, p.ID, 4, store.KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	again, err := server.LoadOrCreateGame(ctx, p.ID, 4, store.KindHuman) // a second session of the server
	if err != nil {
		t.Fatal(err)
	}
	if g.Fence == 0 || again.Fence <= g.Fence {
		t.Fatalf("tokens %d then %d, want growing from 1", g.Fence, again.Fence)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	move := func(s *Store, g *store.SavedGame) error { return playFencedMove(ctx, s, g, rng) }
	if err := move(server, again); err != nil {
		t.Fatal(err)
	}

	theirs, err := local.LoadOrCreateGame(ctx, p.ID, 4, store.KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	if err := move(server, again); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("the server's move after the other process's claim: %v, want store.ErrFenced", err)
	}
	if n := countMoves(t, server, g.ID); n != 1 {
		t.Fatalf("%d moves stored, want 1", n)
	}
	select {
	case n := <-told:
		if n != [2]int64{g.ID, theirs.Fence} {
			t.Fatalf("told %v, want game %d token %d", n, g.ID, theirs.Fence)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server was not told of the takeover")
	}
	if err := move(local, theirs); err != nil {
		t.Fatal(err)
	}
	st := store.StateOf(theirs.Engine)
	st.Fence = again.Fence
	if err := server.EndGame(ctx, g.ID, st); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("the server ending a game claimed since: %v, want store.ErrFenced", err)
	}
	select {
	case n := <-told:
		t.Fatalf("told %v after no further claim", n)
	default:
	}
}
