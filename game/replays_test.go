package game

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// TestReplaysAreShared: those who ask for the same replay while someone
// holds it (a replay screen each) share one: a client that opens replays
// of one long game on every session it may hold used to make the server
// hold a copy of every board of the game for each. A game in play has a
// new replay once it has moved; a replay no one holds is let go.
func TestReplaysAreShared(t *testing.T) {
	st := openSQLite(t)
	svc := New(st, nil)
	ctx := context.Background()
	play := openPlay(t, svc, "ann", 3)
	moveUntilMoved(t, play)

	first, err := svc.Replay(ctx, play.ID())
	if err != nil {
		t.Fatal(err)
	}
	second, err := svc.Replay(ctx, play.ID())
	if err != nil {
		t.Fatal(err)
	}
	if first != second {
		t.Fatal("two replays of one game at one move, the first still held, are two copies")
	}
	if first.GameID != play.ID() || len(first.Boards) != 2 || first.Boards[1] != play.Board() {
		t.Fatalf("the replay: %+v", first)
	}
	moveUntilMoved(t, play)
	later, err := svc.Replay(ctx, play.ID())
	if err != nil {
		t.Fatal(err)
	}
	if later == first || len(later.Boards) != 3 || later.Boards[2] != play.Board() {
		t.Fatalf("the replay after another move: %d boards (the same as before: %v)", len(later.Boards), later == first)
	}
	runtime.KeepAlive(first)
	runtime.KeepAlive(later)

	first, second, later = nil, nil, nil
	for deadline := time.Now().Add(10 * time.Second); svc.replays.len() != 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d replays no one holds are still kept track of", svc.replays.len())
		}
		runtime.GC()
	}
}
