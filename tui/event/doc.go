// Package event is what a screen's runner says to every ssh2048 screen
// (the game screen, the screens that show games, the race screens): the
// messages that end a session (TakenOverMsg, ShutdownMsg, EndMsg), and
// the wake of a screen that waits for something outside itself (Waker,
// WakeMsg, and the WakeSlot a watched game is waited on through). Key
// presses reach every screen too: their names (NameOf, which
// key.Matches compares without working them out again) and the keys that
// move the tiles (MoveKeys) are here, for the screens that play, with
// what they keep while a move commits (Held).
//
// The runner is the SSH server's per-session loop or a tea.Program. The
// messages sit below the screens so that they all answer the same ones,
// and a runner need not know which screen it runs.
package event
