package racing

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/sqlite"
)

// failingStore refuses every move while fail is set, as a full disk does;
// while merged is set it refuses them as a store does once a merge moved
// the game to another account and ended it (that account had one of its
// own in progress).
type failingStore struct {
	*sqlite.Store
	fail, merged atomic.Bool
}

func (s *failingStore) AppendMove(ctx context.Context, gameID int64, seq int, d engine.Direction, st store.MoveState) error {
	switch {
	case s.fail.Load():
		return errors.New("disk I/O error: file too large")
	case s.merged.Load():
		return store.ErrConflict
	}
	return s.Store.AppendMove(ctx, gameID, seq, d, st)
}

func (s *failingStore) FullGame(ctx context.Context, id int64) (store.FullGame, error) {
	g, err := s.Store.FullGame(ctx, id)
	if s.merged.Load() {
		ended := time.Now()
		g.PlayerID, g.EndedAt = g.PlayerID+1000, &ended
	}
	return g, err
}

// pressUntilMoved presses arrow keys until one moves the racer's board,
// and reports whether one did.
func pressUntilMoved(m *Model) bool {
	moves := m.play.Moves()
	for _, k := range arrowKeys {
		press(m, k)
		if m.play.Moves() > moves {
			return true
		}
	}
	return false
}

// TestRaceGoesOnAfterAMoveNotSaved: a racer's move the store refuses (the
// disk was full for a moment) is not shown, the racer is told, and once
// the store takes moves again the race goes on from the game as last
// saved, as a game screen's does: the racer's Play refuses every move
// after one not saved, so the screen used to answer each key after it with
// "Could not save that move" until the clock ran out.
func TestRaceGoesOnAfterAMoveNotSaved(t *testing.T) {
	st := &failingStore{Store: openStore(t)}
	m, tickets := runningRaceIn(t, raceServiceOn(t, st, raceTimes), 4, false, "ann", "bob")
	if !pressUntilMoved(m) {
		t.Fatal("no direction moved the board")
	}
	saved, moves := m.play.Board(), m.play.Moves()

	st.fail.Store(true)
	for _, k := range arrowKeys {
		press(m, k)
	}
	if m.play.Board() != saved || m.play.Moves() != moves {
		t.Fatalf("the screen's game has a move the store refused:\n%v\nsaved:\n%v", m.play.Board(), saved)
	}
	if f := m.View().Content; !strings.Contains(f, "Could not save that move") || strings.Contains(f, "disk I/O") {
		t.Fatalf("the racer is not told the move was not saved, or is told its cause:\n%s", f)
	}

	st.fail.Store(false)
	if !pressUntilMoved(m) {
		t.Fatalf("once the store takes moves again, no key moves the racer's board:\n%s", ansi.Strip(m.View().Content))
	}
	if f := m.View().Content; strings.Contains(f, "Could not save") {
		t.Fatalf("the notice stays after a saved move:\n%s", f)
	}
	// The race has the racer's new game: its board among the others'.
	if got, want := tickets[0].Now().Racers[m.me].Board, m.play.Board(); got != want {
		t.Fatalf("the race shows the racer's board\n%v\nthe screen's game is\n%v", got, want)
	}
	if tickets[0].Play() != m.play {
		t.Fatal("the race reads a game other than the one the screen plays")
	}
}

// TestRaceMoveOfAKeyThatJoinedAnotherAccountIsNotReopened: a move refused
// because the session's key joined another account is not a move not
// saved. The session is being told to end, and says why; opening the
// game again would race on as the account the key left.
func TestRaceMoveOfAKeyThatJoinedAnotherAccountIsNotReopened(t *testing.T) {
	st := &failingStore{Store: openStore(t)}
	m, tickets := runningRaceIn(t, raceServiceOn(t, st, raceTimes), 4, false, "ann", "bob")
	play := m.play
	st.merged.Store(true)
	for _, k := range arrowKeys {
		press(m, k)
	}
	if m.play != play || tickets[0].Play() != play || m.Failed() {
		t.Fatalf("the race game was opened again (%v), or the session failed (%v)", m.play != play, m.Failed())
	}
}
