// Package wire is the contract between an ssh2048 server and the programs
// that talk to it over SSH: the lines of the bot protocol, the rows of
// `scores --json`, the limits on both and the exit statuses of the exec
// commands. docs/bot-protocol.md describes the same contract in prose.
//
// It depends on the standard library only, so that a bot or a monitoring
// script can import it without the server: the server, the load generator
// and the tests all speak through these types. A field renamed here is a
// broken client somewhere: change them only on purpose, and say so in the
// docs.
package wire

import "time"

// State is one line of the bot protocol: the board and score after the
// last command. The server sends one when the game opens and one after
// every command.
type State struct {
	Board  [][]int `json:"board"`  // tile values, row 0 at the top, 0 = empty
	Score  int     `json:"score"`  // sum of all merges so far
	Moves  int     `json:"moves"`  // moves that changed the board
	Moved  bool    `json:"moved"`  // the last command changed the board
	Gained int     `json:"gained"` // points the last command scored
	Won    bool    `json:"won"`    // the target tile has been reached
	Over   bool    `json:"over"`   // no move can change the board: the game has ended
	// Race is set on the lines of `bot --race` only: the race's clock and
	// the opponents' scores as they stood when the line was written.
	Race *Race `json:"race,omitempty"`
}

// Race is what a racing bot's state lines say of the race.
type Race struct {
	ID     string `json:"id"`      // the race: "race:" and a random id
	Room   string `json:"room"`    // the private room's word; "" for the public lobby
	Phase  string `json:"phase"`   // "running", then "finished" on the last line
	LeftMS int64  `json:"left_ms"` // milliseconds until the clock runs out; 0 once finished
	// Place is the bot's place once the race is finished (1 is first);
	// 0 before.
	Place     int        `json:"place"`
	Opponents []Opponent `json:"opponents"` // every other racer, in the order they joined
}

// Opponent is another racer as a racing bot sees them.
type Opponent struct {
	Name    string `json:"name"`   // display name; not unique
	Player  string `json:"player"` // the player's stable id; "" for a guest
	Bot     bool   `json:"bot"`
	Score   int    `json:"score"`
	MaxTile int    `json:"max_tile"`
	Over    bool   `json:"over"` // their board is over
	// Left: they left the race with moves still possible, a forfeit
	// (placed last); a racer who leaves once their board is over is not
	// marked: their score keeps its place.
	Left  bool `json:"left"`
	Place int  `json:"place"` // once the race is finished; 0 before
}

// Race phases on State.Race.
const (
	RaceRunning  = "running"
	RaceFinished = "finished"
)

// Error is the line the server sends, before the unchanged State, for a
// command it did not understand.
type Error struct {
	Error string `json:"error"`
}

// Commands of the bot protocol, one a line; each also has a one-letter
// form (u, d, l, r). Case and surrounding spaces do not matter.
const (
	CommandUp    = "up"
	CommandDown  = "down"
	CommandLeft  = "left"
	CommandRight = "right"
)

// MaxLineBytes is the longest line the bot protocol accepts, newline
// excluded. Commands are single words; the cap keeps a client from making
// the server buffer an endless line. A longer line is answered with an
// Error and the state, and reading goes on.
const MaxLineBytes = 64

// ScoreEntry is one element of the JSON array that `scores --json` prints.
type ScoreEntry struct {
	Rank    int        `json:"rank"`
	Name    string     `json:"name"`   // display name; not unique
	Player  string     `json:"player"` // the account's stable id: 12 characters of the SHA256 fingerprint of the key that made it
	Score   int        `json:"score"`
	MaxTile int        `json:"max_tile"`
	Moves   int        `json:"moves"`
	Won     bool       `json:"won"`
	Ended   *time.Time `json:"ended"` // null while the game is in progress
	GameID  int64      `json:"game_id"`
	Size    int        `json:"size"`
	Kind    string     `json:"kind"` // "human" or "bot"; the web API's /api/scores also "assisted"
	// Contest is set on the rows of `scores --daily`: "daily:YYYY-MM-DD".
	Contest string `json:"contest,omitempty"`
	// Seed is the day's published seed (an unsigned 64-bit decimal, as a
	// string so that no JSON reader rounds it), on the rows of
	// `scores --daily` for a day that is over; omitted before.
	Seed string `json:"seed,omitempty"`
}

// RatingEntry is one element of the JSON array that `scores --races
// --json` prints: a player's race rating (Glicko-2).
type RatingEntry struct {
	Rank      int     `json:"rank"`
	Name      string  `json:"name"`
	Player    string  `json:"player"`
	Rating    float64 `json:"rating"`    // 1500 for a newcomer
	Deviation float64 `json:"deviation"` // how uncertain the rating is; 350 for a newcomer
	Races     int     `json:"races"`     // rated races so far
}

// BotRaceEntry is one element of the JSON array that `scores --races
// --bots --json` prints: races with a bot rate no one and rank apart, by
// wins, then best score.
type BotRaceEntry struct {
	Rank   int    `json:"rank"`
	Name   string `json:"name"`
	Player string `json:"player"`
	Races  int    `json:"races"`
	Wins   int    `json:"wins"`
	Best   int    `json:"best"` // best score in a race with bots
}

// MaxScoresLimit caps `scores --limit`.
const MaxScoresLimit = 1000

// Exit statuses of the exec commands over SSH, of the game screen (OK,
// Error, TakenOver, Restart, Inactive, Banned, Flooded), of `ssh2048 verify` and
// of the admin commands (docs/moderation.md).
const (
	ExitOK           = 0
	ExitError        = 1  // something failed on the server; details on stderr
	ExitUsage        = 2  // unknown command, bad flags, or a record that is not one (malformed, truncated)
	ExitTakenOver    = 3  // a newer session of the same player took over the game
	ExitRestart      = 4  // the server is restarting; the game is saved, reconnect later
	ExitRefuted      = 5  // verify: the moves do not give what the record or the store claims
	ExitNotFound     = 6  // no such game, or no such player playing right now
	ExitInPlay       = 7  // export: the game is still in play; its record is secret until it ends
	ExitNewer        = 8  // verify: the record is from a newer ssh2048
	ExitInactive     = 9  // the session was closed for inactivity: no input for the idle timeout, or no answer to keepalives; the game is saved
	ExitRoom         = 10 // race: the room is full, its race has started, too many rooms are open, or the player is in it already
	ExitBanned       = 11 // the key or account is banned from the server (the line says until when); link: a ban holds on the key or an account
	ExitAdminRefused = 12 // admin: the action is refused as it stands (already so, the last admin, yourself, an admin by file, a name taken)
	ExitFlooded      = 13 // the client sent more input than its session had read, by more than the bound (session.MaxUnreadInput); the game is saved
	// The account commands (docs/accounts.md): 20 and up, apart from the
	// game's statuses.
	ExitRefused = 20 // link, name, keys remove: a wrong, expired or used code, or one of the account's own; a name taken, a look-alike of one, held, or locked by an admin; a rename within a day; the last key, or the session's own key without --self
	ExitMerge   = 21 // link: the key has games of its own; run again with --merge to merge both histories
)
