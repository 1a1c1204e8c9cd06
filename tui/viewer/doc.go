// Package viewer is the screens that show games without playing them: a
// game in play as its player sees it (watch), the best game being played
// (TV), a stored game move by move (replay) and a player's own games
// (history). Each is a View; views stack, and esc closes the top one.
//
// The server's watch, tv, replay and history commands run one on its own
// (NewWatch, NewTV, NewReplay, NewHistory, each a *Viewer). The game
// screen (package tui) opens them over itself in a Stack of its own and
// gives them the messages Owns says are theirs. Games is all they need of
// the game service; they draw with tui/draw and are woken through
// tui/event.
package viewer
