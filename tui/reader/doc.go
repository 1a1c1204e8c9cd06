// Package reader is the game screen for screen readers (NVDA, Orca,
// VoiceOver), which cannot follow a full-screen view repainted in place:
// a line-oriented game that writes sentences and never moves the cursor,
// colours nothing and keeps to the main screen, so that what it says
// stays in the terminal's scrollback for the reader to go over. The
// player opts in with the session's environment (SSH2048_SCREEN=reader,
// sent with OpenSSH's SetEnv) or a setting.
//
// Each move is one sentence (MoveSentence), printed once the game
// service has committed the move: the move runs in a tea.Cmd, the keys
// typed meanwhile are held (event.Held) and handled in order when it
// returns, as on the game screen. b reads the board row by row, r the
// score, best and rank, ? the keys; the other keys are the game
// screen's: the moves (arrows, wasd, hjkl, so s cannot be the score),
// n, the sizes, tab, i, q.
//
// It runs on package screen like every other screen (a tea.Model that is
// a screen.Liner), rather than on a line runner of its own: the key
// decoding, the key rate, the held-key frames, the notices that end a
// session, idle timeouts and panics are then the same as the game
// screen's, and the server's loop needs no second path. Games come in
// through Store, which the server fills from its game service (the free
// game's seat, or the daily challenge's); the package imports no other
// screen.
package reader
