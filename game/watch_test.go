package game

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/sqlite"
)

// newTestService returns a service over a real SQLite file.
func newTestService(t *testing.T) *Service {
	t.Helper()
	return New(openSQLite(t), nil)
}

// openSQLite opens a store on a real SQLite file in a temporary
// directory, closed at the end of the test.
func openSQLite(t *testing.T) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func identify(t *testing.T, svc *Service, name string) Player {
	t.Helper()
	p, err := svc.Identify(context.Background(), "SHA256:"+name, "ssh-ed25519", name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// moveUntilMoved plays directions in turn until one changes the board.
func moveUntilMoved(t *testing.T, p *Play) engine.Result {
	t.Helper()
	for _, d := range engine.Directions() {
		res, err := p.Move(context.Background(), d)
		if err != nil {
			t.Fatal(err)
		}
		if res.Moved {
			return res
		}
	}
	t.Fatal("no move changes the board")
	return engine.Result{}
}

func next(t *testing.T, w *Watch) Snapshot {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	snap, err := w.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func TestWatchSeesEveryMoveInOrder(t *testing.T) {
	svc := newTestService(t)
	ctx := context.Background()
	seat := svc.Seat(identify(t, svc, "ann"), nil)
	defer seat.Close()
	play, err := seat.Open(ctx, 4, store.KindHuman, false)
	if err != nil {
		t.Fatal(err)
	}
	w, err := svc.WatchPlayer(context.Background(), "ann")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	byTag, err := svc.WatchPlayer(context.Background(), "#"+store.ShortID(identify(t, svc, "ann").Fingerprint)[:6])
	if err != nil {
		t.Fatalf("watching by tag: %v", err)
	}
	byTag.Close()
	first := next(t, w)
	if first.GameID != play.ID() || first.Player != "ann" || first.Status != Live || first.Watchers != 1 || first.Board != play.Board() {
		t.Fatalf("first snapshot %+v", first)
	}
	for range 20 {
		res := moveUntilMoved(t, play)
		snap := next(t, w)
		if snap.Moves != play.Moves() || snap.Board != play.Board() || snap.Score != play.Score() || snap.Last != res {
			t.Fatalf("after move %d: spectator saw %+v; player has board %v score %d", play.Moves(), snap, play.Board(), play.Score())
		}
	}
}

// TestStalledSpectatorGetsTheLatest: a spectator that reads nothing never
// holds the player up, and when it reads again it gets the newest board,
// not a queue of old ones.
func TestStalledSpectatorGetsTheLatest(t *testing.T) {
	svc := newTestService(t)
	ctx := context.Background()
	seat := svc.Seat(identify(t, svc, "bo"), nil)
	defer seat.Close()
	play, err := seat.Open(ctx, 4, store.KindHuman, false)
	if err != nil {
		t.Fatal(err)
	}
	w, err := svc.Watch(context.Background(), play.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	before := next(t, w)
	for range 30 { // the spectator reads nothing meanwhile
		moveUntilMoved(t, play)
	}
	snap := next(t, w)
	if snap.Moves != play.Moves() || snap.Board != play.Board() || snap.Version <= before.Version {
		t.Fatalf("stalled spectator got %+v, want the latest of %d moves", snap, play.Moves())
	}
	ctx2, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if snap, err := w.Next(ctx2); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("nothing new, yet Next returned %+v, %v", snap, err)
	}
}

func TestWatchFollowsTakeoverLeaveAndEnd(t *testing.T) {
	svc := newTestService(t)
	ctx := context.Background()
	cy := identify(t, svc, "cy")
	a := svc.Seat(cy, func(error) {})
	play, err := a.Open(ctx, 3, store.KindHuman, false)
	if err != nil {
		t.Fatal(err)
	}
	moveUntilMoved(t, play)
	w, err := svc.Watch(context.Background(), play.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	next(t, w)

	b := svc.Seat(cy, nil)
	taken, err := b.Open(ctx, 3, store.KindHuman, false)
	if err != nil {
		t.Fatal(err)
	}
	snap := next(t, w)
	if snap.TakenOver != 1 || snap.Status != Live || snap.Moves != taken.Moves() {
		t.Fatalf("after takeover %+v", snap)
	}
	a.Close() // the old session ends: the game is still played in b
	moveUntilMoved(t, taken)
	if snap = next(t, w); snap.Status != Live || snap.Moves != taken.Moves() {
		t.Fatalf("after the old session closed and a move: %+v", snap)
	}

	b.Close()
	if snap = next(t, w); snap.Status != Left || snap.Board != taken.Board() {
		t.Fatalf("after the player left: %+v", snap)
	}
	if _, err := svc.Watch(context.Background(), taken.ID()); !errors.Is(err, ErrNotLive) {
		t.Fatalf("a new spectator of a game no one plays: %v", err)
	}

	// Back again, and played to the end.
	c := svc.Seat(cy, nil)
	defer c.Close()
	again, err := c.Open(ctx, 3, store.KindHuman, false)
	if err != nil {
		t.Fatal(err)
	}
	if snap = next(t, w); snap.Status != Live || snap.TakenOver != 1 {
		t.Fatalf("after the player came back: %+v", snap)
	}
	for !again.Over() {
		moveUntilMoved(t, again)
	}
	for snap.Moves != again.Moves() {
		snap = next(t, w)
	}
	if snap.Status != Ended || !snap.Over {
		t.Fatalf("after the last move: %+v", snap)
	}
}

func TestWatchRefusesGuestsAndUnknownGames(t *testing.T) {
	svc := newTestService(t)
	ctx := context.Background()
	seat := svc.Seat(Guest, nil)
	defer seat.Close()
	if _, err := seat.Open(ctx, 4, store.KindHuman, false); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.WatchPlayer(context.Background(), "guest"); !errors.Is(err, ErrNotLive) {
		t.Fatalf("watching a guest: %v", err)
	}
	if _, err := svc.Watch(context.Background(), 12345); !errors.Is(err, ErrNotLive) {
		t.Fatalf("watching an unknown game: %v", err)
	}
	if live := svc.Live(0); len(live) != 0 {
		t.Fatalf("guest games listed as live: %+v", live)
	}
}

func TestWatchersCounted(t *testing.T) {
	svc := newTestService(t)
	ctx := context.Background()
	seat := svc.Seat(identify(t, svc, "di"), nil)
	defer seat.Close()
	play, err := seat.Open(ctx, 4, store.KindHuman, false)
	if err != nil {
		t.Fatal(err)
	}
	w1, _ := svc.Watch(context.Background(), play.ID())
	w2, err := svc.Watch(context.Background(), play.ID())
	if err != nil {
		t.Fatal(err)
	}
	if snap := next(t, w2); snap.Watchers != 2 {
		t.Fatalf("watchers %d, want 2", snap.Watchers)
	}
	w1.Close()
	w1.Close() // twice is once
	if snap := next(t, w2); snap.Watchers != 1 {
		t.Fatalf("watchers %d after one left, want 1", snap.Watchers)
	}
	if got := play.Watchers(); got != 1 {
		t.Fatalf("the player is told %d watchers, want 1", got)
	}
	w2.Close()
	if got := play.Watchers(); got != 0 {
		t.Fatalf("the player is told %d watchers, want 0", got)
	}
	if live := svc.Live(4); len(live) != 1 || live[0].GameID != play.ID() {
		t.Fatalf("live %+v", live)
	}
}

// TestWatchChangedAndPoll: a spectator that waits on Changed with other
// things, then reads with Poll, sees every move as Next would.
func TestWatchChangedAndPoll(t *testing.T) {
	svc := newTestService(t)
	seat := svc.Seat(identify(t, svc, "hal"), nil)
	defer seat.Close()
	play, err := seat.Open(context.Background(), 4, store.KindHuman, false)
	if err != nil {
		t.Fatal(err)
	}
	w, err := svc.Watch(context.Background(), play.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	wait := func() Snapshot {
		t.Helper()
		select {
		case <-w.Changed():
		case <-time.After(5 * time.Second):
			t.Fatal("Changed never closed")
		}
		snap, ok := w.Poll()
		if !ok {
			t.Fatal("Changed closed, and Poll has nothing")
		}
		return snap
	}
	if first := wait(); first.Board != play.Board() {
		t.Fatalf("first snapshot %+v", first)
	}
	if _, ok := w.Poll(); ok {
		t.Fatal("Poll returned a snapshot already seen")
	}
	select {
	case <-w.Changed():
		t.Fatal("Changed is closed with nothing new")
	default:
	}
	for range 5 {
		res := moveUntilMoved(t, play)
		if snap := wait(); snap.Moves != play.Moves() || snap.Last != res {
			t.Fatalf("after move %d: %+v", play.Moves(), snap)
		}
	}
}

// openPlay opens a free-play human game of size for name, on a seat of
// its own that closes with the test.
func openPlay(t *testing.T, svc *Service, name string, size int) *Play {
	t.Helper()
	seat := svc.Seat(identify(t, svc, name), nil)
	t.Cleanup(seat.Close)
	play, err := seat.Open(context.Background(), size, store.KindHuman, false)
	if err != nil {
		t.Fatal(err)
	}
	return play
}

// TestRemoteSnapshotNameCleaned: a game's snapshot from another node (one
// of an older version, say, that sent its player's name as stored) shows
// the name as names are shown: escapes never reach a spectator's screen.
func TestRemoteSnapshotNameCleaned(t *testing.T) {
	var snap Snapshot
	remoteSnapshot{GameID: 1, Player: "bob\x1b[2J\x1b]0;evil\x07\u009b31m\u202e", Size: 4, Kind: store.KindHuman,
		Board: "0 0 0 0/0 0 0 0/0 0 0 0/0 0 0 2"}.apply(&snap)
	if snap.GameID != 1 || snap.Player != "bob" {
		t.Fatalf("game %d, player %q; want game 1 by bob, cleaned", snap.GameID, snap.Player)
	}
}

// TestBestLive: TV's pick is the highest score being played; on equal
// scores the fewer moves, then the older game; games over or left are
// not on.
func TestBestLive(t *testing.T) {
	snaps := []Snapshot{
		{GameID: 1, Score: 500, Moves: 50, Status: Ended},
		{GameID: 2, Score: 300, Moves: 40, Status: Live},
		{GameID: 3, Score: 300, Moves: 30, Status: Live},
		{GameID: 4, Score: 300, Moves: 30, Status: Live},
		{GameID: 5, Score: 900, Moves: 90, Status: Left},
	}
	if best, ok := BestLive(snaps); !ok || best.GameID != 3 {
		t.Fatalf("best %+v %v, want game 3", best, ok)
	}
	if _, ok := BestLive(snaps[:1]); ok {
		t.Fatal("a game over is on TV")
	}
}
