package racing

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/race"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/sqlite"
)

// heldStore is a store whose commits of one game wait, once the test
// names it, until the test lets them through.
type heldStore struct {
	store.Store
	game    atomic.Int64  // the game whose commits wait; 0: none
	entered chan struct{} // a commit of it is waiting
	release chan struct{} // closed: they all go through
}

func (s *heldStore) AppendMove(ctx context.Context, gameID int64, seq int, d engine.Direction, st store.MoveState) error {
	if gameID == s.game.Load() {
		s.entered <- struct{}{}
		<-s.release
	}
	return s.Store.AppendMove(ctx, gameID, seq, d, st)
}

var directionKeys = map[engine.Direction]tea.KeyPressMsg{
	engine.Up: {Code: tea.KeyUp}, engine.Left: {Code: tea.KeyLeft},
	engine.Down: {Code: tea.KeyDown}, engine.Right: {Code: tea.KeyRight},
}

// TestRaceMoveCommitHeld races ann against cat, who play the same seed,
// while ann's first move's commit is held in the store: Update returns
// before the commit, with the commit to run in a command; meanwhile an
// opponent's move and a resize are handled at once, the frame shows
// ann's board as before the move, and the keys typed are held; once the
// commit returns, they are applied in order (ann's game ends as cat's,
// who played the same keys).
func TestRaceMoveCommitHeld(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	st := &heldStore{Store: db, entered: make(chan struct{}, 16), release: make(chan struct{})}
	svc := game.New(st, nil)
	tickets := joinRace(t, racing{svc, race.New(svc, race.WithTimes(10*time.Millisecond, 10*time.Millisecond, time.Minute))},
		"", "ann", "cat")
	var once sync.Once
	let := func() { once.Do(func() { close(st.release) }) }
	// A failed test must not leave a commit waiting; this runs before
	// the racers leave, which reads their games.
	t.Cleanup(let)
	m := New(Options{Ticket: tickets[0], Context: ctx})
	showUntil(t, m, tickets[0], func(v race.View) bool { return v.Phase == race.Running })
	frozen := time.Now()
	m.now = func() time.Time { return frozen }
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	ann, cat := m.play, tickets[1].Play()
	if ann == nil || cat == nil {
		t.Fatal("the race runs without the racers' games")
	}

	// cat plays first: a direction that moves, then the rest, which ann
	// types while her first move commits.
	var first engine.Direction
	for _, d := range []engine.Direction{engine.Up, engine.Left, engine.Down, engine.Right} {
		if res, err := cat.Move(ctx, d); err != nil {
			t.Fatal(err)
		} else if res.Moved {
			first = d
			break
		}
	}
	rest := []engine.Direction{engine.Left, engine.Down, engine.Right, engine.Up, engine.Left}
	for _, d := range rest {
		if _, err := cat.Move(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	catView := tickets[0].Now()

	before := ann.Board()
	st.game.Store(ann.ID())
	updated := make(chan tea.Cmd, 1)
	go func() {
		_, cmd := m.Update(directionKeys[first])
		updated <- cmd
	}()
	var commit tea.Cmd
	select {
	case commit = <-updated:
	case <-st.entered:
		t.Fatal("the move committed in Update, under the screen's lock")
	}
	if commit == nil || !m.KeysPending() {
		t.Fatalf("the move did not start its commit: pending %v", m.KeysPending())
	}
	committed := make(chan tea.Msg, 1)
	go func() { committed <- commit() }()
	<-st.entered // ann's Play is locked by its commit from here

	for _, d := range rest {
		if _, cmd := m.Update(directionKeys[d]); cmd != nil {
			t.Fatalf("key %v typed during the commit did something at once", d)
		}
	}
	m.Update(raceViewMsg{ticket: tickets[0], view: catView}) // its next wait is not run
	if got, want := m.view.Racers[1].Board, cat.Board(); got != want {
		t.Fatalf("cat's move during ann's commit is not on screen: %v, want %v", got, want)
	}
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	if m.width != 100 {
		t.Fatalf("a resize during the commit: width %d", m.width)
	}
	if f := m.frameNow(); f.board != before || f.score != 0 {
		t.Fatalf("the frame during the commit shows board %v score %d, want the board before the move %v", f.board, f.score, before)
	}
	if v := m.View().Content; v == "" {
		t.Fatal("no frame during the commit")
	}

	let()
	drive(t, m, <-committed)
	if m.KeysPending() {
		t.Fatal("a commit still pending after the last returned")
	}
	if got, want := ann.Moves(), cat.Moves(); got != want || ann.Board() != cat.Board() {
		t.Fatalf("ann has %d moves, board %v; cat, who played the same keys, %d, %v", got, ann.Board(), want, cat.Board())
	}
	if got := m.frameNow().board; got != ann.Board() {
		t.Fatalf("the frame shows %v, ann's board is %v", got, ann.Board())
	}
	if got, want := m.view.Racers[m.me].Board, ann.Board(); got != want {
		t.Fatalf("the screen's view has ann's board %v, want %v", got, want)
	}
}

// drive hands m msg, a move's commit returning, and runs the moves'
// commits that follow from it (the held keys'), as a screen would.
func drive(t *testing.T, m *Model, msg tea.Msg) {
	t.Helper()
	msgs := []tea.Msg{msg}
	for len(msgs) > 0 {
		msg, msgs = msgs[0], msgs[1:]
		switch msg := msg.(type) {
		case tea.BatchMsg:
			for _, cmd := range msg {
				if cmd != nil {
					msgs = append(msgs, cmd())
				}
			}
		case movedMsg:
			if _, cmd := m.Update(msg); cmd != nil {
				msgs = append(msgs, cmd())
			}
		}
	}
}

// press gives m the key k as a screen does, and runs to its end the
// commit of the move it starts, if any.
func press(m *Model, k tea.KeyPressMsg) {
	_, cmd := m.Update(k)
	for cmd != nil && m.KeysPending() {
		_, cmd = m.Update(cmd())
	}
}
