package event

// TakenOverMsg ends a session whose game a newer session of the same
// player took over. The server sends it with Program.Send. Text, if set,
// replaces the default last line.
type TakenOverMsg struct{ Text string }

// ShutdownMsg ends a session because the server is restarting; the game
// is already saved. Text, if set, replaces the default last line.
type ShutdownMsg struct{ Text string }

// EndMsg ends a session for another reason the server gives (it was idle,
// the connection stopped answering); the game is already saved. Text is
// the last line.
type EndMsg struct{ Text string }

// NotSavedLine is the last line of a session whose move could not be
// saved, nor its game opened again, on every screen that plays. What
// failed is in the server's log (game.Play logs it), not on the player's
// screen.
const NotSavedLine = "Could not save your move; the game is kept as it was before it."
