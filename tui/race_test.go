package tui

import (
	"context"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ssh2048/ssh2048/db"
	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
)

// runningRace starts a race of names in the public lobby and returns
// their tickets once it runs, and the first racer's screen with the race
// on it.
func runningRace(t testing.TB, names ...string) (*RaceModel, []*game.RaceTicket) {
	t.Helper()
	store, err := db.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	svc := game.New(store, nil, game.WithRaceTimes(10*time.Millisecond, 10*time.Millisecond, time.Minute))
	ctx := context.Background()
	var tickets []*game.RaceTicket
	for _, name := range names {
		p, err := svc.Identify(ctx, "SHA256:"+name, "ssh-ed25519", name)
		if err != nil {
			t.Fatal(err)
		}
		seat := svc.Seat(p, nil)
		t.Cleanup(seat.Close)
		tk, err := svc.JoinRace(ctx, seat, "", 4, false)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(tk.Leave)
		tickets = append(tickets, tk)
	}
	m := NewRace(RaceOptions{Ticket: tickets[0], Context: ctx})
	for {
		v, err := tickets[0].Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if v.Phase == game.Running {
			m.Update(raceViewMsg{ticket: tickets[0], view: v})
			break
		}
	}
	return m, tickets
}

var arrowKeys = []tea.KeyPressMsg{{Code: tea.KeyUp}, {Code: tea.KeyLeft}, {Code: tea.KeyDown}, {Code: tea.KeyRight}}

// TestRaceOwnMoveCarriesItsView: the racer's own move is drawn with the
// race's view that move made (its board among the others', the places),
// not a view behind it; the wake for that view, which comes after, finds
// nothing new and draws the same screen. An opponent's move, when its
// view arrives, is drawn.
func TestRaceOwnMoveCarriesItsView(t *testing.T) {
	m, tickets := runningRace(t, "ann", "bob")
	before := m.View().Content
	moves := m.play.Moves()
	for _, k := range arrowKeys {
		m.Update(k)
		if m.play.Moves() > moves {
			break
		}
	}
	if m.play.Moves() == moves {
		t.Fatal("no direction moved the board")
	}
	now := tickets[0].Now()
	if m.view.Version != now.Version {
		t.Fatalf("after the move the screen has view %d, the race is at %d", m.view.Version, now.Version)
	}
	if got, want := m.view.Racers[m.me].Board, m.play.Board(); got != want {
		t.Fatalf("the screen's view has the racer's board before the move:\n%v\nwant\n%v", got, want)
	}
	moved := m.View().Content
	if moved == before {
		t.Fatal("the move's frame is the frame before it")
	}
	// The wake for the view the move made.
	m.Update(raceViewMsg{ticket: tickets[0], view: now})
	if again := m.View().Content; again != moved {
		t.Fatalf("the view the move made, arriving after it, changed the screen:\n%s\nwant\n%s", again, moved)
	}
	// The opponent moves.
	bob := tickets[1].Play()
	bobMoves := bob.Moves()
	for _, d := range []engine.Direction{engine.Up, engine.Left, engine.Down, engine.Right} {
		if _, err := bob.Move(context.Background(), d); err != nil {
			t.Fatal(err)
		}
		if bob.Moves() > bobMoves {
			break
		}
	}
	m.Update(raceViewMsg{ticket: tickets[0], view: tickets[0].Now()})
	if after := m.View().Content; after == moved {
		t.Fatal("the opponent's move did not change the screen")
	}
}
