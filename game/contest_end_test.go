package game

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/store"
)

// A move that passed its contest's clock on this node but reaches the
// store after the contest's end was stored there (a race's owner on
// another node recorded the race, which ends its games; another node
// ended a past day's dailies) is refused as the game has ended. The
// session still holds the game (its fencing token is the game's), so
// the move is late, not taken over: ErrTimeUp, and the seat is not
// told of a newer session. A free game that a newer session replaced
// is still a takeover.
func TestGameEndedUnderAMove(t *testing.T) {
	tests := []struct {
		name string
		// open opens ann's game on svc; end ends it in the store as
		// something other than ann's session does.
		open func(ctx context.Context, seat *Seat, clk *clock) (*Play, error)
		end  func(t *testing.T, svc *Service, p *Play)
		want error
	}{
		{
			name: "a race recorded by its owner",
			open: func(ctx context.Context, seat *Seat, clk *clock) (*Play, error) {
				return seat.OpenContest(ctx, 4, store.KindBot, "race:0123456789abcdef", 42, clk.Now().Add(time.Minute), nil)
			},
			end:  endContest,
			want: ErrTimeUp,
		},
		{
			name: "a past day's daily ended by another node",
			open: func(ctx context.Context, seat *Seat, _ *clock) (*Play, error) {
				return seat.OpenDaily(ctx, 4)
			},
			end:  endContest,
			want: ErrTimeUp,
		},
		{
			name: "a free game replaced by a newer session",
			open: func(ctx context.Context, seat *Seat, _ *clock) (*Play, error) {
				return seat.Open(ctx, 4, store.KindHuman, false)
			},
			end: func(t *testing.T, svc *Service, p *Play) {
				t.Helper()
				// A new game of the same size from another process on
				// the store ends this one without claiming it.
				other := New(svc.store, nil)
				seat := other.Seat(p.seat.player, nil)
				t.Cleanup(seat.Close)
				if _, err := seat.Open(context.Background(), 4, store.KindHuman, true); err != nil {
					t.Fatal(err)
				}
			},
			want: ErrTakenOver,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clk := &clock{now: time.Now()}
			svc := New(openSQLite(t), nil, WithClock(clk.Now))
			var mu sync.Mutex
			var told []error
			seat := svc.Seat(identify(t, svc, "ann"), func(why error) {
				mu.Lock()
				defer mu.Unlock()
				told = append(told, why)
			})
			t.Cleanup(seat.Close)
			p, err := tc.open(context.Background(), seat, clk)
			if err != nil {
				t.Fatal(err)
			}
			moveUntilMoved(t, p)
			before := p.Board()
			tc.end(t, svc, p)

			for _, d := range engine.Directions() {
				var res engine.Result
				if res, err = p.Move(context.Background(), d); err != nil || res.Moved {
					break
				}
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("a move after the game's end was stored: %v, want %v", err, tc.want)
			}
			if p.Board() != before {
				t.Fatal("the refused move shows on the game")
			}
			mu.Lock()
			defer mu.Unlock()
			if tc.want == ErrTakenOver && (len(told) != 1 || told[0] != ErrTakenOver) {
				t.Fatalf("the session was told %v, want a takeover", told)
			}
			if tc.want != ErrTakenOver && len(told) != 0 {
				t.Fatalf("the session was told %v of a game its contest ended", told)
			}
		})
	}
}

// endContest ends every game of p's contest in the store, as a race's
// owner recording the race does.
func endContest(t *testing.T, svc *Service, p *Play) {
	t.Helper()
	if err := svc.store.(store.ContestEnder).EndContest(context.Background(), p.Contest()); err != nil {
		t.Fatal(err)
	}
}

// contestEndsFirst is a store on which a game's contest ends (a race's
// owner on another node records the race) just before this node writes
// that the game is over.
type contestEndsFirst struct {
	store.Store
	contest string
}

func (s contestEndsFirst) EndGame(ctx context.Context, id int64, st store.MoveState) error {
	if err := s.Store.(store.ContestEnder).EndContest(ctx, s.contest); err != nil {
		return err
	}
	return s.Store.EndGame(ctx, id, st)
}

// TestContestEndedBeforeTheGameEnd: the move that fills a race game's
// board is stored, then the race's end, which ends the game, then this
// node's end of the game, which the store refuses as the game has
// ended. The game is ended as stored: nothing failed, and nothing is
// logged as an error.
func TestContestEndedBeforeTheGameEnd(t *testing.T) {
	const contest = "race:0123456789abcdef"
	st := openSQLite(t)
	var logs bytes.Buffer
	svc := New(contestEndsFirst{st, contest}, slog.New(slog.NewTextHandler(&logs, nil)))
	seat := svc.Seat(identify(t, svc, "ann"), nil)
	t.Cleanup(seat.Close)
	p, err := seat.OpenContest(context.Background(), 3, store.KindHuman, contest, 42, time.Now().Add(time.Minute), nil)
	if err != nil {
		t.Fatal(err)
	}
	for !p.Over() {
		moveUntilMoved(t, p) // fails the test on an error
	}
	if strings.Contains(logs.String(), "level=ERROR") {
		t.Fatalf("the game's end, stored by its contest, logged as an error:\n%s", logs.String())
	}
	if g, err := st.FullGame(context.Background(), p.ID()); err != nil || g.EndedAt == nil || len(g.Dirs) != p.Moves() {
		t.Fatalf("the stored game: ended %v, %d moves of %d; %v", g.EndedAt, len(g.Dirs), p.Moves(), err)
	}
	if _, err := p.Move(context.Background(), engine.Left); !errors.Is(err, ErrOver) {
		t.Fatalf("a move on the ended game: %v, want %v", err, ErrOver)
	}
}
