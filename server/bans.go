package server

import (
	"log/slog"
	"net/netip"
	"time"

	"charm.land/ssh"
	"charm.land/wish/v2"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/moderation"
	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/wire"
)

// bannedAddr is the admission's check of an address against the banned
// ranges (nil without a ban list).
func (s *Server) bannedAddr() func(netip.Addr) bool {
	if s.cfg.Bans == nil {
		return nil
	}
	return func(a netip.Addr) bool {
		_, banned := s.cfg.Bans.Address(a)
		return banned
	}
}

// refuseBanned tells a banned key or player so, in one line, and ends the
// session with wire.ExitBanned; it reports whether it did. Asked after
// authentication, as the ban names a key or a player, which only the
// authenticated key tells: the player learns until when, where a refusal
// during authentication would say only "Permission denied".
func (s *Server) refuseBanned(sess ssh.Session, fingerprint string, p game.Player) bool {
	b, banned := s.banOf(fingerprint, p.ID)
	if !banned {
		return false
	}
	s.cfg.Observer.Refused("banned")
	s.limited.Log(s.log, slog.LevelInfo, "banned login refused", "key", fingerprint, "remote", sess.RemoteAddr().String(), "ban", b.ID)
	wish.Errorln(sess, moderation.Line(b))
	_ = sess.Exit(wire.ExitBanned)
	return true
}

// banOf is the ban that holds for a key or a player (id 0: none), if
// any: of the key, of the player, or of the account that holds the key
// now. The last is for an open session: its player is the account its
// key was on at login, which a merge since may have deleted, the key
// now on the account banned.
func (s *Server) banOf(fingerprint string, id int64) (store.Ban, bool) {
	if s.cfg.Bans == nil {
		return store.Ban{}, false
	}
	if fingerprint != "" {
		if b, banned := s.cfg.Bans.Key(fingerprint); banned {
			return b, true
		}
	}
	if id != 0 {
		if b, banned := s.cfg.Bans.Player(id); banned {
			return b, true
		}
	}
	if fingerprint != "" {
		return s.cfg.Bans.Account(fingerprint)
	}
	return store.Ban{}, false
}

// endGrace is how long a session the server ends (banned, or its
// account merged away) has to say goodbye (a screen its notice,
// NoticeGrace) before its channel is closed under it with the status: a
// command that waits on no notice ends then too.
const endGrace = session.NoticeGrace + 2*time.Second

// endBanned ends the sessions open here whose key or player a ban holds
// for now (the ban list's OnBan: a ban made here, on another node, or
// offline). A ban would otherwise stop only the next login, and leave
// the banned to play, race, watch and chat on for as long as their
// connection lasts. Each session is told as a banned login is: its
// screen restores the terminal and says the ban's line, a command says
// it on stderr, and either exits with wire.ExitBanned; its game is saved,
// as every move is before it is shown.
func (s *Server) endBanned() {
	type ending struct {
		sess *session.Session
		ban  store.Ban
	}
	var banned []ending
	s.mu.Lock()
	for sess := range s.sessions {
		// The key the session logged in with, not the account's first:
		// a key ban is of that key only.
		if b, ok := s.banOf(sess.Key(), sess.Player.ID); ok {
			banned = append(banned, ending{sess, b})
		}
	}
	s.mu.Unlock()
	for _, e := range banned {
		line := moderation.Line(e.ban)
		s.log.Info("banned session ended", "key", e.sess.Key(), "player", e.sess.Player.ID, "ban", e.ban.ID)
		e.sess.Ban(line)
		time.AfterFunc(endGrace, func() { s.closeEnded(e.sess, line, wire.ExitBanned) })
	}
}

// closeEnded closes a session the server ended (endBanned, endMerged)
// that is still open after endGrace, saying why first: line, and the
// exit status.
func (s *Server) closeEnded(sess *session.Session, line string, status int) {
	s.mu.Lock()
	_, open := s.sessions[sess]
	s.mu.Unlock()
	if !open {
		return
	}
	wish.Errorln(sess, line)
	_ = sess.Exit(status)
}
