package store

import (
	"context"
	"errors"
	"time"
)

// AccountID is an account's id in the store: a player is an account, so
// this is the same number as Player.ID, Entry.PlayerID and the other
// player ids of this package (which stay int64 for the code that predates
// accounts). What is kept of a player (games, bests, race entries,
// ratings, and whatever a store adds, bans among them) is kept by
// AccountID, never by key: an account's keys come and go.
type AccountID int64

// Account is a player: one name, one or more SSH keys.
type Account struct {
	ID AccountID
	// Fingerprint is the key that made the account, kept after that key
	// is removed: ShortID of it is the account's public id (PublicID).
	Fingerprint string
	// Name is the account's name; NameClaimed false means a name from
	// before accounts that no one holds yet (its tag tells look-alikes
	// apart, as before).
	Name        string
	NameClaimed bool
	RenamedAt   time.Time // the last rename by the player; zero if none
	// NameLockedUntil is when an admin's rename stops holding against
	// the player's own (docs/moderation.md); zero or past: not locked.
	NameLockedUntil time.Time
	Keys            int // how many keys the account has
	FirstSeen       time.Time
	LastSeen        time.Time
}

// PublicID is the account's stable id as players and scripts see it:
// `player` in scores --json, the tag after a look-alike name. For an
// account that a key made, it is that key's ShortID, so an account from
// before accounts kept the id it had.
func (a Account) PublicID() string { return ShortID(a.Fingerprint) }

// Key is one SSH key of an account.
type Key struct {
	Fingerprint string // SHA256:… as ssh-keygen -lf prints it
	KeyType     string
	Comment     string // SSH does not send a key's comment: empty unless a store learns it otherwise
	Added       time.Time
	LastUsed    time.Time
}

// LinkResult is what Link did.
type LinkResult struct {
	Account Account   // the account the key is on now
	From    AccountID // the account the key was on before, now merged into Account and gone
	Games   int       // games moved from it
}

// How long the things of accounts last.
const (
	// LinkCodeTTL is how long a link code can be used.
	LinkCodeTTL = 10 * time.Minute
	// RenameEvery is how often the player may rename their account.
	RenameEvery = 24 * time.Hour
	// NameHold is how long a name an account gave up (by a rename, or by
	// a merge into another account) stays that account's to take back,
	// before anyone may claim it.
	NameHold = 30 * 24 * time.Hour
)

// The errors of accounts, for callers to branch on with errors.Is.
var (
	// ErrCodeWrong: no such link code.
	ErrCodeWrong = errors.New("no such link code")
	// ErrCodeExpired: the link code was made more than LinkCodeTTL ago.
	ErrCodeExpired = errors.New("link code expired")
	// ErrCodeUsed: the link code has been used already.
	ErrCodeUsed = errors.New("link code already used")
	// ErrAlreadyLinked: the key is on the account of the code already.
	ErrAlreadyLinked = errors.New("key is on that account already")
	// ErrMergeNeeded: the linking key's account has games of its own,
	// which Link moves only when asked to merge. Nothing was changed and
	// the code is still good.
	ErrMergeNeeded = errors.New("the key's account has games of its own")
	// ErrLastKey: an account keeps at least one key.
	ErrLastKey = errors.New("an account keeps at least one key")
	// ErrNameInvalid: the name is empty, too long, holds control or
	// invisible characters, or is reserved (CheckName says which).
	ErrNameInvalid = errors.New("invalid name")
	// ErrNameTaken: another account holds the name, or a look-alike of
	// it, or held it within NameHold.
	ErrNameTaken = errors.New("name taken")
	// ErrRenameTooSoon: the account was renamed less than RenameEvery ago.
	ErrRenameTooSoon = errors.New("renamed too recently")
	// ErrNameLocked: an admin renamed the account and locked its name
	// (Account.NameLockedUntil).
	ErrNameLocked = errors.New("name locked by an admin")
	// ErrBanned: Link refused because the code's account, the linking
	// key's account or the linking key is banned (docs/moderation.md): a
	// link must not carry a key or its games past a ban.
	ErrBanned = errors.New("banned")
)

// Accounts is a store that keeps accounts of several keys and names that
// are one account's (both stores). A store without it keeps one player
// per key, named by its latest connection; the game service answers
// game.ErrNoAccounts and the account commands say accounts are not kept.
//
// UpsertPlayer of such a store resolves a key to its account in one
// lookup; a key it has never seen makes a new account, named after the
// connection's user name when ProposeName accepts it and it is free, and
// else GeneratedName.
type Accounts interface {
	// Account returns an account, or ErrNotFound.
	Account(ctx context.Context, id AccountID) (Account, error)
	// MergedInto returns the account that id is part of now, id being
	// an account a link deleted (Link: the key's account merged into the
	// code's), following the merges of that account since (merged into
	// B, then B into C: C); ErrNotFound if no link deleted id: an
	// account's id, or one never given. The web site sends the pages of
	// such an id on to that account's.
	MergedInto(ctx context.Context, id AccountID) (AccountID, error)
	// AccountKeys lists an account's keys, oldest first.
	AccountKeys(ctx context.Context, id AccountID) ([]Key, error)
	// RemoveKey removes a key from the account: ErrNotFound if it is not
	// one of the account's, ErrLastKey if it is the only one.
	RemoveKey(ctx context.Context, id AccountID, fingerprint string) error
	// AddLinkCode stores the hash of a new link code (LinkCodeHash) for
	// the account, valid for LinkCodeTTL, and returns when it expires.
	AddLinkCode(ctx context.Context, id AccountID, codeHash []byte) (time.Time, error)
	// Link uses a link code from the key with that fingerprint: the
	// key's account is merged into the code's, its keys and everything it
	// kept with them (docs/accounts.md says how). ErrCodeWrong,
	// ErrCodeExpired, ErrCodeUsed, ErrAlreadyLinked, ErrBanned, or
	// ErrMergeNeeded when the key's account has games and merge is false;
	// nothing is changed then.
	Link(ctx context.Context, codeHash []byte, fingerprint string, merge bool) (LinkResult, error)
	// ClaimName makes name (already through CheckName) the account's:
	// ErrNameTaken, ErrRenameTooSoon, ErrNameLocked. Its old name is held
	// for it for NameHold.
	ClaimName(ctx context.Context, id AccountID, name string) (Account, error)
}

// MergeWatcher is a store that tells of every account a link deleted
// (Accounts.Link: the key's account merged into the code's), once the
// link has committed, wherever it ran: a server ends then the sessions
// still open on that account, which would otherwise play on as an
// account that is no more (docs/accounts.md). Both stores are. The
// PostgreSQL store sends its NOTIFY in the link's transaction, so that
// every node hears of a merge when, and only if, it commits; a node
// whose bus is down then misses it, and is told that it may have missed
// some once its bus listens again: it asks GoneAccounts of the accounts
// it plays as. SQLite, one node, tells in process once the link has
// committed, before Link returns, and misses none.
type MergeWatcher interface {
	// OnAccountsMerged calls merged with the id of each account a link
	// deleted, and missed whenever news of links may have been lost
	// since (the first time included), until stop; neither must block.
	OnAccountsMerged(merged func(gone AccountID), missed func()) (stop func())
	// GoneAccounts returns those of ids that are no account now, a link
	// having deleted them, in one query.
	GoneAccounts(ctx context.Context, ids []AccountID) ([]AccountID, error)
}
