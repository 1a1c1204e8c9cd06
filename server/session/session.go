// Package session holds what the server's parts share of one SSH session:
// the session as they see it (who plays it, the notices that end it and
// the exit status each gives), the cleaning of the client's strings before
// they reach a log, the log lines a client can cause at will, limited, and
// the fresh stack that a long-lived goroutine's deep work runs on.
//
// It sits under the server (transport and middleware chain), the
// admission (which ends connections and tells their sessions why) and the
// exec commands (which tell the player why): none of those may import
// another's, so the vocabulary they share lives here, and it imports none
// of them.
package session

import (
	"net"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"charm.land/ssh"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/wire"
	gossh "golang.org/x/crypto/ssh"
)

// Notice is something the server must tell a running session.
type Notice int

const (
	TakenOver Notice = iota + 1 // a newer session took over the game
	Shutdown                    // the server is restarting
	Idle                        // no input for the idle timeout
	Keepalive                   // the client stopped answering keepalives
	Banned                      // an admin banned the session's key or player (Session.Ban)
	Flooded                     // the client got more than MaxUnreadInput ahead of what the session read
	Moved                       // the session's key joined another account: a link deleted the account the session plays as
)

// MaxUnreadInput bounds the input a session holds that its handler has
// not read yet: a client that gets further ahead is told so (Flooded) and
// its session ends. Typing, pasting a line, or a bot that waits for each
// answer never comes near it.
const MaxUnreadInput = 64 << 10

// maxUnreadText is MaxUnreadInput as the player is told it.
const maxUnreadText = "64 KiB"

// NoticeGrace is how long a screen may take to show a notice and quit.
const NoticeGrace = 1500 * time.Millisecond

// Text is what the player is told, one line; idle is the idle timeout
// that Idle names.
func (n Notice) Text(idle time.Duration) string {
	switch n {
	case TakenOver:
		return "This game was opened in a newer session, which takes over from here; nothing was lost."
	case Shutdown:
		return "The server is restarting; your game is saved. Reconnect in a moment to carry on."
	case Idle:
		return "No input for " + Spelled(idle) + ", so the server closed this session. Your game is saved; reconnect to carry on."
	case Keepalive:
		return "Your connection stopped answering, so the server closed this session. Your game is saved; reconnect to carry on."
	case Flooded:
		return FloodedText + " Your game is saved; reconnect to carry on."
	case Moved:
		return MovedText
	}
	return ""
}

// FloodedText is what every session that ends Flooded is told first.
const FloodedText = "You sent more than " + maxUnreadText + " of input ahead of what this session read, so the server closed it."

// MovedText is what a session is told whose key joined another account
// (link CODE, with or without --merge): the link deleted the account the
// session logged in as, whose games, bests and keys are that account's
// now.
const MovedText = "This key joined another account; reconnect to play as that account. Nothing was lost."

// ExitStatus is the exit status of a session that ends because of n.
func (n Notice) ExitStatus() int {
	switch n {
	case TakenOver, Moved: // the game, or the account, is no longer this session's
		return wire.ExitTakenOver
	case Shutdown:
		return wire.ExitRestart
	case Idle, Keepalive:
		return wire.ExitInactive
	case Banned:
		return wire.ExitBanned
	case Flooded:
		return wire.ExitFlooded
	}
	return wire.ExitOK
}

// RemoteIP is the IP address of a connection's peer, as the limits see
// it (behind a trusted balancer, the client's: admission.ProxyListener);
// the invalid Addr for one that is not an IP address.
func RemoteIP(addr net.Addr) netip.Addr {
	ap, err := netip.ParseAddrPort(addr.String())
	if err != nil {
		return netip.Addr{}
	}
	return ap.Addr().Unmap()
}

// Spelled writes a duration as a person would: "10 minutes", "3 seconds".
func Spelled(d time.Duration) string {
	unit := func(n int64, one string) string {
		if n == 1 {
			return "1 " + one
		}
		return strconv.FormatInt(n, 10) + " " + one + "s"
	}
	switch {
	case d >= time.Hour && d%time.Hour == 0:
		return unit(int64(d/time.Hour), "hour")
	case d >= time.Minute && d%time.Minute == 0:
		return unit(int64(d/time.Minute), "minute")
	case d >= time.Second && d%time.Second == 0:
		return unit(int64(d/time.Second), "second")
	}
	return d.String()
}

// Session is the server's view of one SSH session: who plays it, and a
// channel on which it is told to stop.
type Session struct {
	ssh.Session
	Player  game.Player
	Notices chan Notice // buffered; the first notice is the one that counts
	once    sync.Once
	// banLine is what a Banned session is told, the line a banned login
	// gets; set before Banned is sent.
	banLine string
	// linking is set on the session that links its key to another
	// account (Links).
	linking atomic.Bool
	// Pokes asks for the screen to be drawn again (spectators came or
	// went); buffered, and pokes that find it full are one with the one
	// waiting.
	Pokes chan struct{}
	// Settings are the session's settings, by key (store.Settings), set
	// before a screen opens: the player's kept ones, with the session's
	// environment over them (EnvSettings). Nil for a session without a
	// screen.
	Settings map[string]string
	// onInput is told of every read of the session's input that got
	// some: the connection's idle timeout counts input, not traffic.
	onInput func()
}

// Key is the SHA256 fingerprint of the key sess logged in with; "" for
// a guest. Not the account's: an account has several keys, and
// Player.Fingerprint is the one it was made with. What a key ban
// names.
func (sess *Session) Key() string {
	if k := sess.PublicKey(); k != nil {
		return gossh.FingerprintSHA256(k)
	}
	return ""
}

// New returns the session of s, played by p; onInput (nil: none) is
// called on every read that got input.
func New(s ssh.Session, p game.Player, onInput func()) *Session {
	return &Session{Session: s, Player: p, Notices: make(chan Notice, 1), Pokes: make(chan struct{}, 1), onInput: onInput}
}

// Links marks the session as the one that links its key to another
// account (link CODE): the link deletes the account the session logged
// in as, and the session says so itself, with the link's own line,
// rather than be ended as the other sessions of that account are.
func (sess *Session) Links() { sess.linking.Store(true) }

// Linking reports whether the session links its key (Links).
func (sess *Session) Linking() bool { return sess.linking.Load() }

// Poke asks for the session's screen to be drawn again; it never blocks.
func (sess *Session) Poke() {
	select {
	case sess.Pokes <- struct{}{}:
	default:
	}
}

// Notify delivers n unless the session was already told something.
func (sess *Session) Notify(n Notice) {
	sess.once.Do(func() { sess.Notices <- n })
}

// Ban tells the session that its key or player is banned, unless it was
// already told something; line is what the player is told, the line a
// banned login gets (the ban's end, its reason if shown).
func (sess *Session) Ban(line string) {
	sess.once.Do(func() {
		sess.banLine = line
		sess.Notices <- Banned
	})
}

// Worded is text, which words the notices for one kind of session,
// with the session's own line for Banned: the ban's, whatever the
// screen.
func (sess *Session) Worded(text func(Notice) string) func(Notice) string {
	return func(n Notice) string {
		if n == Banned {
			return sess.banLine
		}
		return text(n)
	}
}

// PushInput hands the session's input to deliver as it comes, on a
// goroutine that deliver may keep waiting, rather than to Read: each
// piece in order, then deliver(nil, err) once the input ends. It reports
// false, and does nothing, when the SSH session cannot (only the
// server's own can: package admission reads every session's input anyway,
// so a reader of the caller's would be a second goroutine waiting for the
// same bytes). Input keeps the connection from idling, as with Read.
func (sess *Session) PushInput(deliver func(p []byte, err error)) bool {
	pusher, ok := sess.Session.(interface {
		PushInput(func([]byte, error)) bool
	})
	if !ok {
		return false
	}
	return pusher.PushInput(func(p []byte, err error) {
		if len(p) > 0 && sess.onInput != nil {
			sess.onInput()
		}
		deliver(p, err)
	})
}

// Read is the session's input; any of it keeps the connection from
// idling.
func (sess *Session) Read(p []byte) (int, error) {
	n, err := sess.Session.Read(p)
	if n > 0 && sess.onInput != nil {
		sess.onInput()
	}
	return n, err
}
