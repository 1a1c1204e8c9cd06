package game

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/sqlite"
)

// clock is a fake clock a test moves by hand.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

func TestDailyChallenge(t *testing.T) {
	st, err := sqlite.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	clk := &clock{now: time.Date(2026, 11, 23, 23, 0, 0, 0, time.UTC)}
	svc := New(st, nil, WithClock(clk.Now))
	ctx := context.Background()
	ann, bob := identify(t, svc, "ann"), identify(t, svc, "bob")

	sa, sb := svc.Seat(ann, nil), svc.Seat(bob, nil)
	defer sa.Close()
	defer sb.Close()
	a, err := sa.OpenDaily(ctx, 4)
	if err != nil {
		t.Fatal(err)
	}
	b, err := sb.OpenDaily(ctx, 4)
	if err != nil {
		t.Fatal(err)
	}
	if a.Board() != b.Board() || a.Contest() != "daily:2026-11-23" {
		t.Fatalf("today's boards differ: %v %v (%s)", a.Board(), b.Board(), a.Contest())
	}
	other, err := sa.OpenDaily(ctx, 5)
	if err != nil || other.Board() == a.Board() {
		t.Fatalf("5×5 daily: %v", err)
	}
	if _, err := svc.DailySeed(ctx, "2026-11-23", 4); !errors.Is(err, ErrNotYet) {
		t.Fatalf("today's seed published early: %v", err)
	}
	// The free game of the same size is another game, not taken over.
	free, err := sa.Open(ctx, 4, store.KindHuman, false)
	if err != nil || free.ID() == a.ID() {
		t.Fatalf("free game: %v", err)
	}
	for range 8 {
		moveUntilMoved(t, a)
	}
	moveUntilMoved(t, b)
	if _, err := a.Move(ctx, 0); errors.Is(err, ErrTakenOver) {
		t.Fatal("opening the free game took the daily over")
	}
	board, err := svc.DailyBoard(ctx, "2026-11-23", 4, 10)
	if err != nil || len(board) != 2 || board[0].Name != "ann" {
		t.Fatalf("daily board %+v, %v", board, err)
	}
	if n, _ := svc.Streak(ctx, ann); n != 1 {
		t.Fatalf("streak %d on the first day, want 1", n)
	}

	// Midnight: the day is over.
	clk.Set(time.Date(2026, 11, 24, 0, 0, 1, 0, time.UTC))
	if _, err := a.Move(ctx, 0); !errors.Is(err, ErrTimeUp) {
		t.Fatalf("a move after midnight: %v, want ErrTimeUp", err)
	}
	if n, _ := svc.Streak(ctx, ann); n != 1 {
		t.Fatalf("streak %d before today's is played, want 1 (yesterday's)", n)
	}
	sa.Close()
	sa = svc.Seat(ann, nil)
	next, err := sa.OpenDaily(ctx, 4)
	if err != nil || next.Contest() != "daily:2026-11-24" {
		t.Fatalf("the next day's daily: %v", err)
	}
	moveUntilMoved(t, next)
	if n, _ := svc.Streak(ctx, ann); n != 2 {
		t.Fatalf("streak %d after two days, want 2", n)
	}
	if n, _ := svc.Streak(ctx, bob); n != 1 {
		t.Fatalf("bob's streak %d, want 1 (yesterday)", n)
	}
	// Yesterday's games ended with the day, even one nobody reopened; the
	// seed is published and every game of the day exports.
	if _, err := svc.Record(ctx, b.ID()); err != nil {
		t.Fatalf("record of bob's game of yesterday: %v", err)
	}
	seed, err := svc.DailySeed(ctx, "2026-11-23", 4)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := svc.Record(ctx, a.ID())
	if err != nil {
		t.Fatalf("record of yesterday's daily: %v", err)
	}
	if rec.Seed != seed {
		t.Fatalf("published seed %d, the game's %d", seed, rec.Seed)
	}
	// One attempt a day: yesterday's cannot be reopened, and today's once
	// ended cannot be played again.
	if err := st.EndContest(ctx, "daily:2026-11-24"); err != nil {
		t.Fatal(err)
	}
	sa.Close()
	sa = svc.Seat(ann, nil)
	if _, err := sa.OpenDaily(ctx, 4); !errors.Is(err, ErrDailyPlayed) {
		t.Fatalf("second attempt: %v, want ErrDailyPlayed", err)
	}
	// Ended, today's game still keeps the day's tiles to itself: its
	// record would give the seed, its replay the moves that score it.
	if _, err := svc.Record(ctx, next.ID()); !errors.Is(err, ErrDailyOn) {
		t.Fatalf("record of today's ended daily: %v, want ErrDailyOn", err)
	}
	if _, err := svc.Replay(ctx, next.ID()); !errors.Is(err, ErrDailyOn) {
		t.Fatalf("replay of today's ended daily: %v, want ErrDailyOn", err)
	}
}

// TestDailyGuestPractice: a guest's daily is a practice board, never
// today's tiles (else anyone could rehearse the day's one attempt as a
// guest, as often as they like, then play it with their key): each guest
// game has a seed of its own, and none of them lands on the day's board.
func TestDailyGuestPractice(t *testing.T) {
	st := openSQLite(t)
	clk := &clock{now: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	svc := New(st, nil, WithClock(clk.Now))
	ctx := context.Background()
	today, err := svc.dailySeed(ctx, "2026-11-23", 4)
	if err != nil {
		t.Fatal(err)
	}
	seedOf := func(p *Play) uint64 {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.game.Seed()
	}
	seen := map[uint64]bool{}
	for i := range 3 {
		st := svc.Seat(Guest, nil)
		t.Cleanup(st.Close)
		p, err := st.OpenDaily(ctx, 4)
		if err != nil {
			t.Fatal(err)
		}
		seed := seedOf(p)
		if seed == today {
			t.Fatalf("guest %d plays today's seed", i)
		}
		if seen[seed] {
			t.Fatalf("guest %d plays the seed of another guest's daily", i)
		}
		seen[seed] = true
		moveUntilMoved(t, p)
		// Opened again in the same session, it is the same practice game.
		if again, err := st.OpenDaily(ctx, 4); err != nil || again != p {
			t.Fatalf("the guest's daily opened again: %v, %v", again, err)
		}
	}
	if rows, err := svc.DailyBoard(ctx, "2026-11-23", 4, 10); err != nil || len(rows) != 0 {
		t.Fatalf("guests on the day's board: %+v, %v", rows, err)
	}
}

// A daily game an account merge moved aside ("merged:daily:DAY", ended)
// is still of its day: kept back until the day is over, for its seed is
// everyone's today, and the merged account's counted game of the day is
// still open.
func TestMergedDailyKeptBackUntilTheDayIsOver(t *testing.T) {
	ctx := context.Background()
	st := openSQLite(t)
	clk := &clock{now: time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)}
	svc := New(st, nil, WithClock(clk.Now))
	ann, alt := identify(t, svc, "ann"), identify(t, svc, "alt")
	sa, sb := svc.Seat(ann, nil), svc.Seat(alt, nil)
	a, err := sa.OpenDaily(ctx, 4)
	if err != nil {
		t.Fatal(err)
	}
	b, err := sb.OpenDaily(ctx, 4)
	if err != nil {
		t.Fatal(err)
	}
	moveUntilMoved(t, a)
	moveUntilMoved(t, a)
	moveUntilMoved(t, b)
	sa.Close()
	sb.Close()
	code, _, err := svc.NewLinkCode(ctx, ann)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Link(ctx, alt, code, "SHA256:alt", true); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Record(ctx, b.ID()); !errors.Is(err, ErrDailyOn) {
		t.Errorf("export of the merged-aside daily the same day: %v, want ErrDailyOn", err)
	}
	if _, err := svc.Replay(ctx, b.ID()); !errors.Is(err, ErrDailyOn) {
		t.Errorf("replay: %v, want ErrDailyOn", err)
	}
	clk.Set(clk.Now().Add(24 * time.Hour))
	if _, err := svc.Record(ctx, b.ID()); err != nil {
		t.Errorf("export the next day: %v", err)
	}
}

// A race game is kept back for MaxRaceTime after it started, ended or
// not, and shown after.
func TestRaceGameShownOnceTheRaceIsOver(t *testing.T) {
	ctx := context.Background()
	st := openSQLite(t)
	clk := &clock{now: time.Now()} // the store stamps the game's start by its own clock
	svc := New(st, nil, WithClock(clk.Now))
	seat := svc.Seat(identify(t, svc, "ann"), nil)
	defer seat.Close()
	p, err := seat.OpenContest(ctx, 3, store.KindHuman, "race:0123456789abcdef", 42, clk.Now().Add(3*time.Minute), nil)
	if err != nil {
		t.Fatal(err)
	}
	for !p.Over() {
		moveUntilMoved(t, p)
	}
	clk.Set(clk.Now().Add(MaxRaceTime - time.Minute))
	if _, err := svc.Record(ctx, p.ID()); !errors.Is(err, ErrRaceOn) {
		t.Fatalf("export within MaxRaceTime: %v, want ErrRaceOn", err)
	}
	clk.Set(clk.Now().Add(2 * time.Minute))
	if _, err := svc.Record(ctx, p.ID()); err != nil {
		t.Fatalf("export after MaxRaceTime: %v", err)
	}
	if _, err := svc.Replay(ctx, p.ID()); err != nil {
		t.Fatalf("replay after MaxRaceTime: %v", err)
	}
}

// FuzzParseDay: a day is read only as Today writes it, one string a day,
// at midnight UTC, and every day of the four-digit years is read. The
// daily code keys contests and seeds by the string it was given, and
// keeps a day's seed secret by comparing that string with Today's: a
// second spelling of a day would be a second contest with its own seed.
func FuzzParseDay(f *testing.F) {
	for _, s := range []string{"2026-11-29", "2026-02-29", "0000-01-01", "9999-12-31", "2026-1-5", " 2026-11-29", "+026-11-29", "2026-11-29T00:00:00Z"} {
		f.Add(s, int32(0))
	}
	f.Add("", int32(3652058))
	f.Fuzz(func(t *testing.T, s string, days int32) {
		if day, err := ParseDay(s); err == nil {
			if got := day.Format(dayLayout); got != s || !day.Equal(day.UTC().Truncate(24*time.Hour)) || day.Location() != time.UTC {
				t.Fatalf("ParseDay(%q) = %v, written %q", s, day, got)
			}
		}
		want := time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(days%3652425))
		if want.Year() < 0 || want.Year() > 9999 {
			return
		}
		if got, err := ParseDay(want.Format(dayLayout)); err != nil || !got.Equal(want) {
			t.Fatalf("ParseDay(%q) = %v, %v; want %v", want.Format(dayLayout), got, err, want)
		}
	})
}
