package store

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// Moderator is a store that keeps what an operator decides about players
// (both stores): admins, bans, renames and their name locks, hidden games
// and players, and the audit log of every such decision. Package
// moderation runs the admin commands on it, over SSH and offline alike;
// without it a server has no admin commands and bans nothing.
//
// Every write takes an Action (who, why) and records it in the audit log
// in the same transaction as the change itself: a change is never stored
// without its audit row, nor an audit row without its change. Writes about
// one player are serialized (on PostgreSQL across nodes too), so two
// admins acting on one player at once each get a clear answer: one
// succeeds, the other is refused with a sentinel error below (or succeeds
// after the first, where both can).
//
// A "player" here is today's players row (one key). Each store maps a
// player to the rows an action applies to in one place (its
// subjectPlayers), so that accounts of several keys change that mapping
// and nothing else.
type Moderator interface {
	// SyncAdminKeys makes the keys of the --admin-keys file the admins
	// "by file", creating their players if need be (names untouched), and
	// drops the file admins no longer in keys. Granted admins stay.
	SyncAdminKeys(ctx context.Context, keys []AdminKey) error
	// IsAdmin reports whether the player is an admin (by file or grant).
	IsAdmin(ctx context.Context, playerID int64) (bool, error)
	// Admins lists the admins.
	Admins(ctx context.Context) ([]Admin, error)
	// Grant makes a player an admin (ErrExists if they are one).
	Grant(ctx context.Context, a Action, playerID int64) error
	// Revoke ends a granted admin (ErrNotFound if not one; ErrByFile for
	// an admin of the file; ErrLastAdmin for the last one).
	Revoke(ctx context.Context, a Action, playerID int64) error

	// Ban stores a ban (ErrExists: that target is banned already;
	// ErrLastAdmin: it would leave no admin who can log in; ErrSelf: it
	// bans the actor).
	Ban(ctx context.Context, a Action, b BanSpec) (Ban, error)
	// Unban lifts the active ban of a target (ErrNotFound if none).
	Unban(ctx context.Context, a Action, kind BanKind, target string) (Ban, error)
	// Bans lists the bans in force at now, newest first; a player's
	// with the keys of the account (Ban.Keys).
	Bans(ctx context.Context, now time.Time) ([]Ban, error)

	// Rename sets a player's display name (sanitized as store.SanitizeName)
	// and keeps them from changing it until lockedUntil (zero: no lock).
	Rename(ctx context.Context, a Action, playerID int64, name string, lockedUntil time.Time) (Player, error)

	// HideGame takes a game off every board (ErrInPlay while it is being
	// played; ErrExists if it is hidden already).
	HideGame(ctx context.Context, a Action, gameID int64) error
	// UnhideGame puts a hidden game back (ErrNotFound if not hidden;
	// ErrInvalid while its player is hidden).
	UnhideGame(ctx context.Context, a Action, gameID int64) error
	// HidePlayer hides every game of a player, and every game they play
	// from now on (ErrExists if hidden already).
	HidePlayer(ctx context.Context, a Action, playerID int64) error
	// UnhidePlayer puts back the games HidePlayer hid (ErrNotFound if the
	// player is not hidden); games hidden one by one stay hidden.
	UnhidePlayer(ctx context.Context, a Action, playerID int64) error

	// HiddenGames says which of the games ids an admin has hidden now
	// (HideGame, HidePlayer): for a server to take the games it holds in
	// play off the spectators' lists when their player is hidden,
	// whichever node or console hid them.
	HiddenGames(ctx context.Context, ids []int64) (map[int64]bool, error)

	// FindPlayer resolves what an admin typed (see PlayerRef) to one
	// player: ErrNotFound, or ErrAmbiguous for a name several share.
	FindPlayer(ctx context.Context, ref string) (Player, error)
	// SearchPlayers lists players whose name or fingerprint contains
	// text (all players, newest first, when text is empty).
	SearchPlayers(ctx context.Context, text string, limit int) ([]PlayerInfo, error)
	// PlayerDetail is what the store knows of a player for an admin.
	PlayerDetail(ctx context.Context, playerID int64) (PlayerDetail, error)
	// Audit lists the audit log from since on, oldest first.
	Audit(ctx context.Context, since time.Time, limit int) ([]AuditEntry, error)
}

// Sentinel errors of Moderator.
var (
	// ErrExists: the change is made already (banned, hidden, an admin).
	ErrExists = errors.New("already so")
	// ErrLastAdmin: the change would leave no admin.
	ErrLastAdmin = errors.New("the last admin")
	// ErrSelf: an admin may not ban themselves.
	ErrSelf = errors.New("that is yourself")
	// ErrByFile: an admin of the --admin-keys file, not revocable by command.
	ErrByFile = errors.New("an admin by the admin keys file")
	// ErrInPlay: the game is being played right now.
	ErrInPlay = errors.New("game in play")
	// ErrAmbiguous: a name several players share.
	ErrAmbiguous = errors.New("several players have that name")
)

// MaxReason bounds an action's reason, in bytes.
const MaxReason = 500

// InPlayFor is how long after its last move an unfinished game counts as
// in play: HideGame refuses it until then (a game left unfinished can be
// hidden once its player has gone).
const InPlayFor = 10 * time.Minute

// Action is who does a moderation write and why: the audit row's author
// and reason.
type Action struct {
	ActorID int64  // the admin's player id; 0 offline (the console)
	Actor   string // how the audit log names them: a name and key, or "console:USER"
	Reason  string // required for bans, renames and hides; at most MaxReason bytes
}

// AdminKey is one key of the --admin-keys file.
type AdminKey struct {
	Fingerprint string
	KeyType     string
	Comment     string // the line's comment, the new player's name if the key is new
}

// Admin is one admin.
type Admin struct {
	Player
	ByFile    bool // from the --admin-keys file, not a grant
	GrantedAt time.Time
}

// BanKind is what a ban names.
type BanKind string

// The kinds of ban.
const (
	BanPlayer BanKind = "player" // a player (its keys)
	BanKey    BanKind = "key"    // one key fingerprint, whether it has played or not
	BanCIDR   BanKind = "cidr"   // an address range, refused before the handshake
)

// BanSpec is a ban to store. Target is the player's id in decimal, the
// key's fingerprint, or the range in netip.Prefix's canonical form.
type BanSpec struct {
	Kind       BanKind
	Target     string
	PlayerID   int64     // for BanPlayer
	Until      time.Time // zero: until lifted
	ShowReason bool      // the banned are told the reason
}

// Ban is a stored ban.
type Ban struct {
	ID         int64
	Kind       BanKind
	Target     string
	PlayerID   int64  // BanPlayer: the player
	Name       string // BanPlayer: their name when listed
	Reason     string
	ShowReason bool
	By         string
	At         time.Time
	Until      time.Time // zero: until lifted
	// Keys (BanPlayer, as Bans reads it) are the fingerprints of the
	// keys the player's account has now. A session names the key it
	// logged in with and the account that key was on then, which a merge
	// since may have deleted (link --merge): the ban holds on the
	// session by its key.
	Keys []string
}

// Prefix is a CIDR ban's range (the zero Prefix for other kinds).
func (b Ban) Prefix() netip.Prefix {
	if b.Kind != BanCIDR {
		return netip.Prefix{}
	}
	p, _ := netip.ParsePrefix(b.Target)
	return p
}

// InForce reports whether b holds at now.
func (b Ban) InForce(now time.Time) bool { return b.Until.IsZero() || now.Before(b.Until) }

// PlayerInfo is one row of the player list.
type PlayerInfo struct {
	Player
	Games      int
	Admin      bool
	Hidden     bool
	Banned     bool
	NameLocked time.Time // zero: not locked
}

// PlayerDetail is what `admin player` shows.
type PlayerDetail struct {
	PlayerInfo
	Keys        []Key        // the account's keys, all of them
	Names       []HeldName   // the names the account holds or held, newest first
	Bans        []Ban        // every ban of the player or their keys, lifted ones too
	HiddenGames []int64      // games hidden one by one or with the player
	Actions     []AuditEntry // audit rows about the player, renames among them
}

// HeldName is a name an account claimed: its own now (Released zero), or
// given up then and held for it for NameHold.
type HeldName struct {
	Name     string
	Claimed  time.Time
	Released time.Time
}

// AuditEntry is one row of the audit log.
type AuditEntry struct {
	ID      int64
	At      time.Time
	Actor   string
	ActorID int64
	Action  string // ban, unban, grant, revoke, rename, hide, unhide, admin-keys
	Target  string // what it acted on, as typed back: player #12, key SHA256:…, cidr 10.0.0.0/8, game 7
	Reason  string
	Detail  string // e.g. the ban's end, the old and new name
}

// MaxDetailRows bounds the audit rows PlayerDetail lists.
const MaxDetailRows = 100

// HideAction names hide or unhide in the audit log.
func HideAction(hide bool) string {
	if hide {
		return "hide"
	}
	return "unhide"
}

// RenameDetail is the audit log's detail of a rename.
func RenameDetail(old, name string, lockedUntil time.Time) string {
	d := strconv.Quote(old) + " → " + strconv.Quote(name)
	if !lockedUntil.IsZero() {
		d += ", locked until " + lockedUntil.UTC().Format(time.RFC3339)
	}
	return d
}

// ParsePlayerRef reads what an admin typed to name a player: "#12" or
// "12" is the player's id, "SHA256:…" a key's fingerprint, anything else a
// display name (exactly as stored).
func ParsePlayerRef(ref string) (id int64, fingerprint, name string) {
	if n, err := strconv.ParseInt(strings.TrimPrefix(ref, "#"), 10, 64); err == nil && n > 0 {
		return n, "", ""
	}
	if strings.HasPrefix(ref, "SHA256:") {
		return 0, ref, ""
	}
	return 0, "", ref
}

// OnePlayer is FindPlayer's answer from the players a reference found.
func OnePlayer(ref string, found []Player) (Player, error) {
	switch len(found) {
	case 0:
		return Player{}, fmt.Errorf("player %q: %w", ref, ErrNotFound)
	case 1:
		return found[0], nil
	}
	return Player{}, fmt.Errorf("player %q: %w; name them by id (#N) or key (SHA256:…)", ref, ErrAmbiguous)
}

// BanWatcher is a store shared by several nodes that tells each node at
// once when any node changes the bans (package postgres, through its
// bus). Without it a node learns of another's bans at its next refresh
// of the list (moderation.BanList).
type BanWatcher interface {
	OnBansChanged(fn func()) (stop func())
}
