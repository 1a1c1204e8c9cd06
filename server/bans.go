package server

import (
	"log/slog"
	"net/netip"

	"charm.land/ssh"
	"charm.land/wish/v2"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/moderation"
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
	if s.cfg.Bans == nil {
		return false
	}
	b, banned := s.cfg.Bans.Key(fingerprint)
	if !banned && p.ID != 0 {
		b, banned = s.cfg.Bans.Player(p.ID)
	}
	if !banned {
		return false
	}
	s.cfg.Observer.Refused("banned")
	s.limited.Log(s.log, slog.LevelInfo, "banned login refused", "key", fingerprint, "remote", sess.RemoteAddr().String(), "ban", b.ID)
	wish.Errorln(sess, moderation.Line(b))
	_ = sess.Exit(wire.ExitBanned)
	return true
}
