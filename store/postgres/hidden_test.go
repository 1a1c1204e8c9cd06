package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/postgres/pgtest"
)

// TestHideReachesAnotherNodesLiveGame: a player hidden on one node is
// hidden in every node's ranks in memory, the games they are playing on
// another node included: that game's later moves rank nowhere, as on the
// node that hid them, and another player takes first place.
func TestHideReachesAnotherNodesLiveGame(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Database(t)
	a, b := startNode(t, url, "a").store, startNode(t, url, "b").store
	eve, err := a.UpsertPlayer(ctx, "SHA256:eve", "ssh-ed25519", "eve")
	if err != nil {
		t.Fatal(err)
	}
	bob, err := a.UpsertPlayer(ctx, "SHA256:bob", "ssh-ed25519", "bob")
	if err != nil {
		t.Fatal(err)
	}
	const board = "2 0 0 0/0 0 0 0/0 0 0 0/0 0 0 2"
	move := func(g *store.SavedGame, seq, score int) {
		t.Helper()
		if err := a.AppendMove(ctx, g.ID, seq, engine.Left, store.MoveState{Score: score, MaxTile: 2, Moves: seq + 1, Board: board}); err != nil {
			t.Fatal(err)
		}
	}
	// Eve plays on node a, ahead of bob.
	live, err := a.NewGame(ctx, eve.ID, 4, store.KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	move(live, 0, 100)
	other, err := a.NewGame(ctx, bob.ID, 4, store.KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	move(other, 0, 50)
	if e, err := a.PlayerRank(ctx, eve.ID, 4, store.KindHuman); err != nil || e.Rank != 1 {
		t.Fatalf("eve before the hide: %+v, %v; want first", e, err)
	}

	// Node b hides her; node a hears of it.
	if err := b.HidePlayer(ctx, store.Action{Actor: "console:test", Reason: "cheating"}, eve.ID); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := a.PlayerRank(ctx, eve.ID, 4, store.KindHuman)
		if errors.Is(err, store.ErrNotFound) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("node a still ranks eve after node b hid her: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Her game on node a goes on, and ranks nowhere.
	move(live, 1, 500)
	if e, err := a.PlayerRank(ctx, eve.ID, 4, store.KindHuman); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("node a ranks eve's game after she was hidden on node b: %+v, %v", e, err)
	}
	if e, err := a.PlayerRank(ctx, bob.ID, 4, store.KindHuman); err != nil || e.Rank != 1 {
		t.Errorf("bob on node a: %+v, %v; want first", e, err)
	}
	if top, err := a.Leaderboard(ctx, 4, store.KindHuman, 10); err != nil || len(top) != 1 || top[0].PlayerID != bob.ID {
		t.Errorf("node a's board: %+v, %v; want bob alone", top, err)
	}
}
