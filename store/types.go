package store

import (
	"errors"
	"time"

	"github.com/ssh2048/ssh2048/engine"
)

// Sentinel errors callers branch on with errors.Is.
var (
	// ErrNotFound: no such player, game or leaderboard entry.
	ErrNotFound = errors.New("not found")
	// ErrConflict: the move's sequence number does not match the stored
	// move count, e.g. a stale session writing after another took over the
	// game. Nothing was written; reload the game.
	ErrConflict = errors.New("conflicting write: game changed since it was loaded")
	// ErrGameEnded: the game has ended and takes no more moves.
	ErrGameEnded = errors.New("game has ended")
	// ErrClosed: the store is closed.
	ErrClosed = errors.New("store closed")
	// ErrSchemaTooNew: the database was migrated by a newer ssh2048.
	ErrSchemaTooNew = errors.New("database schema is newer than this binary")
	// ErrInvalid: an argument is out of range (size, kind, direction, state).
	ErrInvalid = errors.New("invalid argument")
	// ErrFenced: the write carries a fencing token (MoveState.Fence) that
	// is no longer the game's: a session on another node, or in another
	// process on the same SQLite file, has claimed the game since this
	// one loaded it. Nothing was written.
	ErrFenced = errors.New("game claimed by another node since it was loaded")
)

// Kind says who played a game; each kind has its own leaderboard.
type Kind string

// The kinds of game.
const (
	KindHuman    Kind = "human"    // played by hand
	KindAssisted Kind = "assisted" // the AI hinted or played at least once
	KindBot      Kind = "bot"      // played through the bot protocol
)

// Valid reports whether k is one of the three kinds.
func (k Kind) Valid() bool { return k == KindHuman || k == KindAssisted || k == KindBot }

// Player is an account (account.go) as the games see it: someone who
// connected with one of its public keys.
type Player struct {
	ID          int64  // the account's AccountID
	Fingerprint string // the key that made the account, SHA256:… as ssh-keygen -lf prints it (Account.Fingerprint)
	KeyType     string // of the key of this connection, e.g. ssh-ed25519
	Name        string // the account's name, sanitized
	FirstSeen   time.Time
	LastSeen    time.Time
}

// SavedGame is a stored game with its live engine state, rebuilt by replay.
// Engine is not safe for concurrent use; its owner moves it and
// then calls Store.AppendMove with the resulting MoveState.
type SavedGame struct {
	ID        int64
	PlayerID  int64
	Size      int
	Kind      Kind
	Seed      uint64
	StartedAt time.Time
	Engine    *engine.Game
	// Fence is the fencing token this load claimed the game with, for
	// stores shared by several nodes or processes: the writer's moves
	// carry it (MoveState.Fence).
	Fence int64
	// Hidden: an admin took the game, or its player, off the boards
	// (Moderator); spectators' lists leave it out too.
	Hidden bool
}

// MoveState is what the caller's engine.Game says after a move (or at the
// end of a game). The store keeps it as the game's snapshot, so appends
// never replay.
type MoveState struct {
	Score   int
	MaxTile int
	Moves   int // moves played so far, this one included
	Won     bool
	Board   string // engine.Board.String()
	// Fence is the token the writer's game was loaded with
	// (SavedGame.Fence). A store that fences refuses a write whose token
	// is no longer the game's (ErrFenced); 0 asks for no such check.
	Fence int64
}

// StateOf returns the MoveState of g.
func StateOf(g *engine.Game) MoveState {
	return MoveState{Score: g.Score(), MaxTile: g.MaxTile(), Moves: g.Moves(), Won: g.Won(), Board: g.Board().String()}
}

// GameSummary is one line of a player's history.
type GameSummary struct {
	ID        int64
	Size      int
	Kind      Kind
	Score     int
	MaxTile   int
	Moves     int
	Won       bool
	Contest   string // '' for free play, else 'daily:YYYY-MM-DD' or 'race:ID'
	StartedAt time.Time
	UpdatedAt time.Time
	EndedAt   *time.Time // nil while in progress
	Hidden    bool       // an admin took it off the boards (set by PlayerGames)
}

// Entry is one row of a leaderboard: a player's best game of a size and
// kind (in progress or ended) and its rank.
type Entry struct {
	Rank        int // 1-based; no two entries share a rank
	PlayerID    int64
	Name        string
	Fingerprint string // the player's key, as Player.Fingerprint
	Score       int
	MaxTile     int
	Moves       int
	Won         bool
	Ended       *time.Time // nil while the game is in progress
	GameID      int64
}

// FullGame is a stored game with everything it was played from: who played
// it, its tile generator, seed and every move. Replays and records are made
// from it. Its seed tells every tile to come: it must not leave the server
// while the game can be played (EndedAt nil).
type FullGame struct {
	GameSummary
	PlayerID    int64
	Player      string // display name
	Fingerprint string
	Generator   engine.Generator
	Seed        uint64
	Dirs        []engine.Direction // every move that changed the board, in order
	Board       string             // the stored snapshot after the last move (engine.Board.String)
}

// BotRaceEntry is one row of the board of races with bots, which rate no
// one and so rank apart: by wins, then best score.
type BotRaceEntry struct {
	Rank        int
	PlayerID    int64
	Name        string
	Fingerprint string
	Races       int
	Wins        int
	Best        int // the best score of their races with bots
}

// Rating is a player's race rating (Glicko-2; package rating computes it).
type Rating struct {
	Rating, Deviation, Volatility float64
	Races                         int // races rated so far
}

// RaceResult is a finished race, to be stored with its ratings.
type RaceResult struct {
	Contest        string // 'race:' and the race's id: its games' contest
	Size           int
	Room           string // '' for the public lobby
	Bots           bool   // a bot raced: the race ranks apart and rates no one
	Started, Ended time.Time
	Entries        []RaceEntry
	// Rate, if set, reckons the new ratings of the rated entries (those
	// with an After, as Recorded leaves them) from their ratings as
	// stored when the race is recorded, inside the store's write: rated
	// is those players in place order, current the stored ratings of
	// those who have one. It returns the new ratings by player; nil rates
	// no one (fewer than two left to rate). Without it, each After is
	// stored as given. A rating read when the racer joined would undo the
	// result of another race the player finished meanwhile.
	Rate func(rated []int64, current map[int64]Rating) map[int64]Rating
}

// Rated is the players of the rated entries of recorded (Recorded's
// entries), in their order.
func Rated(recorded []RaceEntry) []int64 {
	var ids []int64
	for _, e := range recorded {
		if e.After != nil {
			ids = append(ids, e.PlayerID)
		}
	}
	return ids
}

// Rerated is recorded (Recorded's entries) with the new ratings r.Rate
// reckons from current (see Rate); recorded itself if r has no Rate.
func (r RaceResult) Rerated(recorded []RaceEntry, current map[int64]Rating) []RaceEntry {
	if r.Rate == nil {
		return recorded
	}
	after := r.Rate(Rated(recorded), current)
	out := make([]RaceEntry, len(recorded))
	for i, e := range recorded {
		if e.After != nil {
			if a, ok := after[e.PlayerID]; ok {
				e.After = &a
			} else {
				e.After = nil
			}
		}
		out[i] = e
	}
	return out
}

// RaceEntry is one racer of a RaceResult who has a key (guests are not
// stored).
type RaceEntry struct {
	PlayerID int64
	GameID   int64
	Place    int
	Score    int
	Forfeit  bool    // left with moves still possible (not once the board was over): placed last
	After    *Rating // the new rating; nil: not rated
}

// Recorded is r's entries as a store records them, given owners, the
// account that holds each entry's game (by game ID) as the race is
// recorded, in r's order:
//   - A racer whose key was merged into another account while the race
//     ran (link --merge) is recorded under the account that holds its
//     game now, unrated: its rating was reckoned from an account that is
//     gone.
//   - Two seats on one account by then keep one entry, the seat taken
//     first (the lower game ID), unrated. Not the better place: that was
//     the best of two attempts, chosen once both were known; nor the kept
//     account's seat, which the player chooses too, by which key runs
//     link. Their ratings were reckoned apart, so neither counts.
func (r RaceResult) Recorded(owners map[int64]int64) []RaceEntry {
	first := map[int64]int64{} // account → the lowest game ID of its seats
	seats := map[int64]int{}
	for _, e := range r.Entries {
		owner := owners[e.GameID]
		if g, ok := first[owner]; !ok || e.GameID < g {
			first[owner] = e.GameID
		}
		seats[owner]++
	}
	out := make([]RaceEntry, 0, len(first))
	for _, e := range r.Entries {
		owner := owners[e.GameID]
		if first[owner] != e.GameID {
			continue
		}
		if owner != e.PlayerID || seats[owner] > 1 {
			e.PlayerID, e.After = owner, nil
		}
		out = append(out, e)
	}
	return out
}

// RatingEntry is one row of the race ratings board.
type RatingEntry struct {
	Rank        int
	PlayerID    int64
	Name        string
	Fingerprint string
	Rating
}

// ErrContestPlayed: the player has already played that contest (the daily
// challenge takes one attempt a day and size).
var ErrContestPlayed = errors.New("already played")

// LiveGame is a game a session holds right now on some node of a shared
// store, as its snapshot columns say (a spectator's first board before
// the holding node's events arrive).
type LiveGame struct {
	GameID      int64
	Player      string // display name as stored
	Fingerprint string
	Size        int
	Kind        Kind
	Board       string // engine.Board.String()
	Score       int
	Moves       int
	Won         bool
	Node        string // the node holding it
	Contest     string // "" for free play, else "daily:DAY" or "race:ID"
}
