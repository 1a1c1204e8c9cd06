package tui

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/tui/event"
	"github.com/ssh2048/ssh2048/tui/internal/tuitest"
)

// movingKeys are the first n arrow keys that each change the board,
// played from the game of seed 1 (the fake store's first).
func movingKeys(t *testing.T, n int) ([]string, []engine.Direction) {
	t.Helper()
	g, err := engine.PCG.NewGame(4, 1)
	if err != nil {
		t.Fatal(err)
	}
	names := map[engine.Direction]string{engine.Left: "left", engine.Down: "down", engine.Right: "right", engine.Up: "up"}
	var keys []string
	var dirs []engine.Direction
	for len(dirs) < n {
		for _, d := range []engine.Direction{engine.Left, engine.Down, engine.Right, engine.Up} {
			if g.Move(d).Moved {
				keys, dirs = append(keys, names[d]), append(dirs, d)
				break
			}
		}
	}
	return keys, dirs
}

// replayMoving is the directions of dirs that change the board, played
// from the stored game of seed 1 with done already played.
func replayMoving(t *testing.T, done, dirs []engine.Direction) []engine.Direction {
	t.Helper()
	g, err := engine.PCG.Replay(4, 1, done)
	if err != nil {
		t.Fatal(err)
	}
	var moved []engine.Direction
	for _, d := range dirs {
		if g.Move(d).Moved {
			moved = append(moved, d)
		}
	}
	return moved
}

// TestMoveCommitHoldsKeys drives the model as a screen does while its
// first move's commit is in flight (the command not yet run): the frame
// shows the board before the move, a resize is handled at once, and the
// keys typed meanwhile wait for the commit's result and are then applied
// in order; after a failed commit, against the stored game; after a
// takeover, not at all.
func TestMoveCommitHoldsKeys(t *testing.T) {
	keys, dirs := movingKeys(t, 3)
	for _, tc := range []struct {
		name  string
		err   error // the first move's commit
		moves func(t *testing.T) []engine.Direction
		quit  bool
	}{
		{name: "saved", moves: func(*testing.T) []engine.Direction { return dirs }},
		{name: "failed", err: errors.New("disk full"),
			moves: func(t *testing.T) []engine.Direction { return replayMoving(t, nil, dirs[1:]) }},
		{name: "taken over", err: game.ErrTakenOver, quit: true,
			moves: func(*testing.T) []engine.Direction { return nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Options{}, 80, 24)
			before := h.frame()
			_, commit := h.m.Update(tuitest.KeyPress(keys[0]))
			if commit == nil || !h.m.KeysPending() {
				t.Fatalf("a move did not start its commit: pending %v", h.m.KeysPending())
			}
			for _, k := range keys[1:] {
				if _, cmd := h.m.Update(tuitest.KeyPress(k)); cmd != nil {
					t.Fatalf("key %s typed during a commit did something at once", k)
				}
			}
			if f := h.frame(); f != before || !strings.Contains(f, "Moves 0") {
				t.Fatalf("the frame during the commit is not the board before the move:\n%s\nbefore:\n%s", f, before)
			}
			h.m.Update(resize(100, 30))
			if h.m.width != 100 || !strings.Contains(h.frame(), "Moves 0") {
				t.Fatalf("a resize during the commit: width %d, frame\n%s", h.m.width, h.frame())
			}
			h.store.moveErr = tc.err
			moved := commit() // the first move, as the screen's goroutine runs it
			h.store.moveErr = nil
			h.send(moved)
			if got, want := h.store.moves(4), tc.moves(t); !slices.Equal(got, want) {
				t.Errorf("stored moves %v, want %v", got, want)
			}
			if h.quit != tc.quit {
				t.Errorf("quit %v, want %v", h.quit, tc.quit)
			}
			if h.m.KeysPending() || h.m.held.Len() != 0 {
				t.Errorf("after the commit: pending %v, %d messages held", h.m.KeysPending(), h.m.held.Len())
			}
			if n := h.store.count("MISMATCH"); n != 0 {
				t.Errorf("%d moves were stored against a game that was not the stored one", n)
			}
		})
	}
}

// TestMoveCommitHoldsBoundedKeys: past event.MaxHeldKeys, keys typed during a
// commit are dropped, as keys past the screen's key rate are; the other
// messages that wait for the commit are still held.
func TestMoveCommitHoldsBoundedKeys(t *testing.T) {
	keys, _ := movingKeys(t, 1)
	h := newHarness(t, Options{}, 80, 24)
	_, commit := h.m.Update(tuitest.KeyPress(keys[0]))
	for range event.MaxHeldKeys + 10 {
		h.m.Update(tuitest.KeyPress("left"))
	}
	h.m.Update(event.ShutdownMsg{})
	if h.m.held.Keys() != event.MaxHeldKeys || h.m.held.Len() != event.MaxHeldKeys+1 {
		t.Fatalf("held %d keys and %d messages, want %d keys and the shutdown", h.m.held.Keys(), h.m.held.Len(), event.MaxHeldKeys)
	}
	h.sendN(commit(), 10*event.MaxHeldKeys)
	if !h.quit {
		t.Error("the shutdown held behind the keys did not end the session")
	}
}
