// Package store is what ssh2048 keeps of its players and games, said once
// for every place that keeps it: the vocabulary (Kind, Player, SavedGame,
// MoveState, Entry and the other rows), the sentinel errors callers branch
// on, the checks and replay every store makes the same way, the names and
// look-alikes shown for players, accounts (account.go: a player is an
// account of one or more keys, with a name that is its alone), and the
// contract a store fulfils: Store, and the optional abilities below it.
//
// The implementations are its sibling packages, as database/sql/driver's
// types sit above the drivers: store/sqlite keeps one SQLite file (one
// node, or several processes on one file), store/postgres one PostgreSQL
// database shared by several nodes. Everything above the stores (the game
// service, the screens, the web pages) speaks only this package, so that
// none of it links the cgo SQLite driver, and store/storetest checks both
// implementations against the same contract.
//
// Optional abilities are interfaces a store may also implement, found with
// a type assertion as net/http finds a Flusher: each says who implements it
// and what a caller does without it. A new store starts with Store; each
// ability it adds turns on the feature that asks for it.
package store

import (
	"context"
	"time"

	"github.com/ssh2048/ssh2048/engine"
)

// Store is what the game service needs from storage; package sqlite's and
// package postgres's stores implement it. Every method is safe for
// concurrent use, and a write has happened (durably) when it returns nil.
type Store interface {
	// UpsertPlayer returns the player of the key that authenticated,
	// recording its use; a key never seen makes a new player. A store
	// with Accounts resolves the key to its account, which keeps its
	// name (rawName only names a new one); a store without renames the
	// key's player to rawName, sanitized.
	UpsertPlayer(ctx context.Context, fingerprint, keyType, rawName string) (Player, error)
	// LoadOrCreateGame returns the player's unfinished game of that size
	// and kind, replayed, or a new one. A player that is not (an account a
	// merge deleted) gets ErrNotFound, as from NewGame and
	// OpenContestGame.
	LoadOrCreateGame(ctx context.Context, playerID int64, size int, kind Kind) (*SavedGame, error)
	// NewGame starts a new game, ending any unfinished one of that size
	// and kind.
	NewGame(ctx context.Context, playerID int64, size int, kind Kind) (*SavedGame, error)
	// AppendMove stores move seq (0-based) of a game; it is durable when
	// AppendMove returns. A stale writer gets ErrConflict, a writer whose
	// game another node claimed ErrFenced.
	AppendMove(ctx context.Context, gameID int64, seq int, d engine.Direction, st MoveState) error
	// EndGame marks a game finished.
	EndGame(ctx context.Context, gameID int64, st MoveState) error
	// MarkAssisted turns a human game into an assisted one.
	MarkAssisted(ctx context.Context, gameID int64) error
	// Leaderboard lists the best game of each player, best first.
	Leaderboard(ctx context.Context, size int, kind Kind, limit int) ([]Entry, error)
	// PlayerRank returns the player's best game with its rank, or
	// ErrNotFound.
	PlayerRank(ctx context.Context, playerID int64, size int, kind Kind) (Entry, error)
	// PlayerGames lists the player's games, newest first, hidden ones
	// (GameSummary.Hidden) included: its caller chooses who sees them.
	PlayerGames(ctx context.Context, playerID int64, limit int) ([]GameSummary, error)
	// FullGame returns a game with its seed and every move, or
	// ErrNotFound.
	FullGame(ctx context.Context, id int64) (FullGame, error)
	// OpenContestGame returns the player's game of a contest, started on
	// the contest's seed if need be; ErrContestPlayed for a daily game
	// already played.
	OpenContestGame(ctx context.Context, playerID int64, size int, kind Kind, contest string, seed uint64) (*SavedGame, error)
	// ContestBoard ranks a contest's games of one size.
	ContestBoard(ctx context.Context, contest string, size, limit int) ([]Entry, error)
	// ContestsPlayed lists the contests of a prefix a player played, newest first.
	ContestsPlayed(ctx context.Context, playerID int64, prefix string, limit int) ([]string, error)
	// EndPastDailies ends the daily games of the days before today.
	EndPastDailies(ctx context.Context, today string) error
	// Secret returns a named server secret, created on first use.
	Secret(ctx context.Context, name string) ([]byte, error)
	// Ratings returns the race ratings of the players that have one.
	Ratings(ctx context.Context, playerIDs []int64) (map[int64]Rating, error)
	// RecordRace stores a finished race and its ratings.
	RecordRace(ctx context.Context, r RaceResult) error
	// RatingBoard lists the best race ratings.
	RatingBoard(ctx context.Context, limit int) ([]RatingEntry, error)
	// PlayerByID returns a player, or ErrNotFound.
	PlayerByID(ctx context.Context, id int64) (Player, error)
}

// PagedBoarder is a store that reads a page of a leaderboard from any rank
// without reading the ranks before it (package sqlite, whose
// OFFSET walks the index). Without it the game service reads the ranks before the
// page and drops them, up to game.MaxUnpagedOffset.
type PagedBoarder interface {
	LeaderboardFrom(ctx context.Context, size int, kind Kind, offset, limit int) ([]Entry, error)
}

// BotRaceBoarder is a store that ranks the players of races with bots,
// which rate no one (both stores). Without it the game service answers
// game.ErrNoBoard and the screens and commands say the board is not kept.
type BotRaceBoarder interface {
	BotRaceBoard(ctx context.Context, limit int) ([]BotRaceEntry, error)
}

// ContestRanker is a store that ranks one player in a contest, with the
// number of players ranked (both stores). Without it the game service
// answers game.ErrNoBoard, as for BotRaceBoarder.
type ContestRanker interface {
	ContestRank(ctx context.Context, playerID int64, contest string, size int) (Entry, int, error)
}

// ContestEnder is a store that ends every game of a contest still in
// progress at once, as stored (both stores): a day that is over, a race
// whose clock ran out. Nothing in the server calls it yet (EndPastDailies
// and RecordRace end their contests' games themselves); the conformance
// suite checks it and tests end a day's daily with it.
type ContestEnder interface {
	EndContest(ctx context.Context, contest string) error
}

// ReviewStore is a store that keeps the AI's reviews of ended games (both
// stores), so that a game is reviewed once: a review is searches of every
// move, a stored one a single read. The review is opaque here (package
// review's JSON); version is the method that made it, and a review of
// another version counts as none, which is what makes a new method review
// the game again. Without it the game service reviews a game on every
// request.
type ReviewStore interface {
	// GameReview is game id's review made by version; ErrNotFound if
	// there is none of that version.
	GameReview(ctx context.Context, gameID int64, version int) ([]byte, error)
	// SaveGameReview keeps review, made by version, for game id,
	// replacing any other; ErrNotFound if there is no such game.
	SaveGameReview(ctx context.Context, gameID int64, version int, review []byte) error
	// PlayerReviews is for moderators (docs/moderation.md): it calls each
	// with the stored review made by version of every ended game the
	// player played by hand (kind human, whatever its contest, hidden or
	// not), oldest first, and returns how many such games there are,
	// reviewed or not. It reads what is stored and makes no review.
	PlayerReviews(ctx context.Context, playerID int64, version int, each func(gameID int64, review []byte) error) (games int, err error)
}

// LiveLister is a store shared by several nodes that knows which games
// are held right now, wherever (package postgres). The game service
// lists the games of other nodes for spectators and TV with it; without
// it (or without a bus between the nodes) spectators see this node's
// games only.
type LiveLister interface {
	LiveGames(ctx context.Context, size int, id int64) ([]LiveGame, error)
}

// Releaser is a store that records which node holds a game (package
// postgres): a session that closes a game gives its hold up with
// Release, so that another node may take the game over at once. Without
// it there is nothing to give up.
type Releaser interface {
	Release(ctx context.Context, gameID, fence int64) error
}

// TakeoverNotifier is a store shared by processes without a bus between
// them (package sqlite: the server and `ssh2048 play` on one file), which
// tells of the games another process claimed from this one, with their
// new fencing token. The game service ends its session of such a game at
// once; without it (or when a bus carries the claims instead) the session
// learns of the claim from its next write's ErrFenced.
type TakeoverNotifier interface {
	OnTakeover(fn func(gameID, token int64))
}

// RaceDirectory is a store shared by several nodes that says which node
// runs each race lobby and private room (package postgres). With a bus
// between the nodes, races then span them; without it every node runs
// its own lobby and rooms.
type RaceDirectory interface {
	// ClaimRace makes this node the owner of key with race id unless a
	// live node owns it with a race other than replace; it returns the
	// key's race and owner after the claim.
	ClaimRace(ctx context.Context, key, id, replace string) (race, node string, err error)
	// ReleaseRace gives key up if it still holds race id of this node.
	ReleaseRace(ctx context.Context, key, id string) error
	// Node is this node's name.
	Node() string
}

// Observer is told what a store does, for an operator's metrics (package
// metrics implements it; both stores take one when opened). Its methods
// are called on the store's hot paths, the writer goroutine among them:
// they must be quick and never block.
type Observer interface {
	// Committed: one group commit of writes writes, took from BEGIN to
	// the end of COMMIT (the fsync included).
	Committed(writes int, took time.Duration)
	// Waited: one write was answered (committed or refused), took from
	// being queued: what the caller waited, the group's commit included.
	Waited(took time.Duration)
	// MoveStored: AppendMove committed a move.
	MoveStored()
	// Failed: a database operation failed in a way that is not the
	// caller's doing (not a conflict or an ended game); op is "begin",
	// "write", "commit" or "checkpoint".
	Failed(op string)
}

// NopObserver is the observer of a store opened without one.
type NopObserver struct{}

func (NopObserver) Committed(int, time.Duration) {}
func (NopObserver) Waited(time.Duration)         {}
func (NopObserver) MoveStored()                  {}
func (NopObserver) Failed(string)                {}
