package game

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/sqlite"
)

func TestHistoryRecentAndBestPerSize(t *testing.T) {
	svc := newTestService(t)
	ctx := context.Background()
	eve := identify(t, svc, "eve")
	seat := svc.Seat(eve, nil)
	defer seat.Close()

	// Three 3×3 games played to the end and one 4×4 in progress, and a
	// fresh 5×5 without a move (left out).
	var scores3 []int
	for range 3 {
		p, err := seat.Open(ctx, 3, store.KindHuman, true)
		if err != nil {
			t.Fatal(err)
		}
		for !p.Over() {
			moveUntilMoved(t, p)
		}
		scores3 = append(scores3, p.Score())
	}
	p4, err := seat.Open(ctx, 4, store.KindHuman, false)
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		moveUntilMoved(t, p4)
	}
	if _, err := seat.Open(ctx, 5, store.KindHuman, false); err != nil {
		t.Fatal(err)
	}

	h, err := svc.History(ctx, eve, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Recent) != 3 || h.Recent[0].ID != p4.ID() || h.Recent[0].EndedAt != nil {
		t.Fatalf("recent %+v: want the 4×4 game in progress first, then two 3×3", h.Recent)
	}
	for _, g := range h.Recent {
		if g.Moves == 0 {
			t.Fatalf("a game without a move is listed: %+v", g)
		}
	}
	best3 := max(scores3[0], scores3[1], scores3[2])
	if len(h.Best) != 2 || h.Best[0].Size != 3 || h.Best[0].Score != best3 || h.Best[1].Size != 4 || h.Best[1].ID != p4.ID() {
		t.Fatalf("best %+v: want the 3×3 game of %d (of %v) and the 4×4 game", h.Best, best3, scores3)
	}

	if g, err := svc.History(ctx, Guest, 10); err != nil || len(g.Recent)+len(g.Best) != 0 {
		t.Fatalf("a guest's history: %+v, %v", g, err)
	}
}

func TestPlayingDoesNotWatch(t *testing.T) {
	svc := newTestService(t)
	ctx := context.Background()
	seat := svc.Seat(identify(t, svc, "fay"), nil)
	defer seat.Close()
	if _, ok := svc.Playing("fay"); ok {
		t.Fatal("fay plays nothing yet")
	}
	p, err := seat.Open(ctx, 4, store.KindHuman, false)
	if err != nil {
		t.Fatal(err)
	}
	snap, ok := svc.Playing("fay")
	if !ok || snap.GameID != p.ID() || snap.Status != Live {
		t.Fatalf("Playing: %+v %v", snap, ok)
	}
	if p.Watchers() != 0 {
		t.Fatalf("looking counts as watching: %d", p.Watchers())
	}
}

// TestOnWatchersTellsThePlayer: the seat holding a game is told when a
// spectator comes and goes, and again after a takeover, at the new seat.
func TestOnWatchersTellsThePlayer(t *testing.T) {
	svc := newTestService(t)
	ctx := context.Background()
	gus := identify(t, svc, "gus")
	var told atomic.Int32
	seat := svc.Seat(gus, func(error) {})
	seat.OnWatchers(func() { told.Add(1) })
	p, err := seat.Open(ctx, 4, store.KindHuman, false)
	if err != nil {
		t.Fatal(err)
	}
	w, err := svc.Watch(context.Background(), p.ID())
	if err != nil {
		t.Fatal(err)
	}
	if told.Load() != 1 || p.Watchers() != 1 {
		t.Fatalf("after a spectator came: told %d, watchers %d", told.Load(), p.Watchers())
	}
	w.Close()
	if told.Load() != 2 || p.Watchers() != 0 {
		t.Fatalf("after it left: told %d, watchers %d", told.Load(), p.Watchers())
	}

	w, err = svc.Watch(context.Background(), p.ID())
	if err != nil {
		t.Fatal(err)
	}
	var toldNewer atomic.Int32
	newer := svc.Seat(gus, nil)
	defer newer.Close()
	newer.OnWatchers(func() { toldNewer.Add(1) })
	taken, err := newer.Open(ctx, 4, store.KindHuman, false)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if toldNewer.Load() != 1 || taken.Watchers() != 0 {
		t.Fatalf("after a takeover the newer seat was told %d times, watchers %d", toldNewer.Load(), taken.Watchers())
	}
	seat.Close()
}

// TestDailyNotShownWhileOn: a game of today's daily challenge, in play, is
// neither watched, listed for TV, nor replayed (everyone plays the day on
// the same tiles); the player's other game is watched by name; once the
// day is over the game replays.
func TestDailyNotShownWhileOn(t *testing.T) {
	st, err := sqlite.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	clk := &clock{now: time.Date(2026, 11, 23, 20, 0, 0, 0, time.UTC)}
	svc := New(st, nil, WithClock(clk.Now))
	ctx := context.Background()
	ivy := identify(t, svc, "ivy")
	seat := svc.Seat(ivy, nil)
	defer seat.Close()
	daily, err := seat.OpenDaily(ctx, 4)
	if err != nil {
		t.Fatal(err)
	}
	moveUntilMoved(t, daily)
	if _, err := svc.Watch(context.Background(), daily.ID()); !errors.Is(err, ErrDailyOn) {
		t.Fatalf("watching today's daily game: %v", err)
	}
	if _, err := svc.WatchPlayer(context.Background(), "ivy"); !errors.Is(err, ErrDailyOn) {
		t.Fatalf("watching a player on today's daily: %v", err)
	}
	if live := svc.Live(0); len(live) != 0 {
		t.Fatalf("today's daily game is listed live: %+v", live)
	}
	if _, err := svc.Replay(ctx, daily.ID()); !errors.Is(err, ErrDailyOn) {
		t.Fatalf("replaying today's daily game: %v", err)
	}
	if _, err := svc.Record(ctx, daily.ID()); !errors.Is(err, ErrDailyOn) {
		t.Fatalf("exporting today's daily game in play: %v, want ErrDailyOn (not ErrInPlay: watch and replay refuse it too)", err)
	}

	// Her free game is watched by name, the daily left out.
	other := svc.Seat(ivy, nil)
	defer other.Close()
	free, err := other.Open(ctx, 5, store.KindHuman, false)
	if err != nil {
		t.Fatal(err)
	}
	w, err := svc.WatchPlayer(context.Background(), "ivy")
	if err != nil {
		t.Fatal(err)
	}
	if snap := next(t, w); snap.GameID != free.ID() {
		t.Fatalf("watching ivy shows game %d, want her free game %d", snap.GameID, free.ID())
	}
	w.Close()

	clk.Set(time.Date(2026, 11, 24, 0, 5, 0, 0, time.UTC))
	if r, err := svc.Replay(ctx, daily.ID()); err != nil || len(r.Dirs) != 1 {
		t.Fatalf("yesterday's daily game replays: %v", err)
	}
}
