package server

import (
	"time"

	"charm.land/ssh"
)

// Observer is told what the server does, for an operator's metrics
// (package metrics implements it). Its methods are called on the
// connection and session paths: they must be quick and never block.
// Every label it is given is one of a fixed set the server names, never
// a client's string (a name, an address, a command line), so a client
// cannot grow the set of series.
type Observer interface {
	// Refused: a connection was turned away over a limit or by a ban;
	// reason is "full", "rate", "unauthenticated", "per_56", "reserve"
	// or "banned_range" (before the handshake), or "per_ip", "guests"
	// or "banned" (a banned key or player, after authentication).
	Refused(reason string)
	// SessionOpened and SessionClosed bracket a session; kind is "game"
	// (the game screen), an exec command of the command table ("scores",
	// "bot", …), "unknown" (a command not in it) or "none" (neither).
	SessionOpened(kind string)
	SessionClosed(kind string)
	// KeyToFrame: a key's frame was written, took after the key arrived.
	KeyToFrame(took time.Duration)
	// AdminAction: an admin's write over SSH was made; action is ban,
	// unban, grant, revoke, rename, hide or unhide.
	AdminAction(action string)
}

type nopObserver struct{}

func (nopObserver) Refused(string)           {}
func (nopObserver) SessionOpened(string)     {}
func (nopObserver) SessionClosed(string)     {}
func (nopObserver) KeyToFrame(time.Duration) {}
func (nopObserver) AdminAction(string)       {}

// sessionKind is what kind of session sess is, in the Observer's terms.
func (s *Server) sessionKind(sess ssh.Session) string {
	_, _, hasPty := sess.Pty()
	switch args := sess.Command(); {
	case sess.RawCommand() != "" && len(args) > 0:
		if c := s.commands.Named(args[0]); c != nil {
			return c.Name
		}
		return "unknown"
	case sess.RawCommand() != "":
		return "unknown"
	case hasPty:
		return "game"
	}
	return "none"
}

// Accepting reports whether the server takes new sessions: false once
// Shutdown has begun. For a readiness probe.
func (s *Server) Accepting() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.shutdown
}
