package server

import (
	"time"

	"charm.land/ssh"
	"charm.land/wish/v2"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/server/admission"
	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/wire"
	gossh "golang.org/x/crypto/ssh"
)

type contextKey struct{ name string }

var playerKey = &contextKey{"player"}

// identify finds the player behind the session's key and hands it on in the
// session's context.
func (s *Server) identify(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		key := sess.PublicKey() // the key that authenticated (see admission.AcceptKey)
		p := game.Guest
		if key != nil {
			fp := gossh.FingerprintSHA256(key)
			// A banned key is refused before its player is even touched.
			if s.refuseBanned(sess, fp, game.Player{}) {
				return
			}
			name := sess.User()
			if s.cfg.Blocked.Blocks(name) {
				name = "" // a new account gets a generated name (store.ProposeName)
			}
			s.noteLostNews(sess.Context())
			var err error
			session.OnFreshStack(func() { // a database read (see session.OnFreshStack)
				p, err = s.games.Identify(sess.Context(), fp, key.Type(), name)
			})
			if err != nil {
				s.log.Error("identify player", "err", err, "remote", sess.RemoteAddr().String())
				wish.Errorln(sess, "ssh2048: could not load your player record; try again later.")
				_ = sess.Exit(wire.ExitError)
				return
			}
			if s.refuseBanned(sess, fp, p) {
				return
			}
		}
		sess.Context().SetValue(playerKey, p)
		next(sess)
	}
}

func playerOf(sess ssh.Session) game.Player {
	p, _ := sess.Context().Value(playerKey).(game.Player)
	return p
}

// logging logs every session's start and end, within the log budget of
// its address (admission.LogLine); the client's strings are cut short
// (session.ClientAttrs), and escaped like every logged string (CleanLogHandler).
func (s *Server) logging(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		start := time.Now()
		logged, unlogged := s.admission.LogLine(sess.Context(), start)
		if !logged {
			next(sess)
			return
		}
		var user []any
		var fp string
		// A log line is deep work (see session.OnFreshStack).
		session.OnFreshStack(func() { user, fp = s.logConnect(sess, unlogged) })
		defer func() {
			s.log.Info("disconnect", append(user, "key", fp,
				"remote", sess.RemoteAddr().String(), "duration", time.Since(start).Round(time.Millisecond))...)
		}()
		next(sess)
	}
}

// logConnect logs a session's start, and returns the attributes its end
// is logged with.
func (s *Server) logConnect(sess ssh.Session, unlogged int) (user []any, fp string) {
	pty, _, hasPty := sess.Pty()
	fp = "guest"
	if key := sess.PublicKey(); key != nil {
		fp = gossh.FingerprintSHA256(key)
	}
	user = session.ClientAttrs("user", sess.User())
	args := append(append([]any{}, user...), "key", fp, "remote", sess.RemoteAddr().String())
	args = append(args, session.ClientAttrs("command", sess.RawCommand())...)
	args = append(args, "pty", hasPty)
	args = append(args, session.ClientAttrs("term", pty.Term)...)
	args = append(args, session.ClientAttrs("client", sess.Context().ClientVersion())...)
	if unlogged > 0 {
		args = append(args, "unlogged", unlogged) // sessions of this address left out since its last line
	}
	s.log.Info("connect", args...)
	return user, fp
}

// route sends the session where it belongs: an exec command to the
// command table (package command), a PTY without a command to the TUI, and
// anything else back with a hint.
func (s *Server) route(next ssh.Handler) ssh.Handler {
	return func(raw ssh.Session) {
		sess := session.New(raw, playerOf(raw), admission.Input(raw.Context()))
		kind := s.sessionKind(sess)
		s.cfg.Observer.SessionOpened(kind)
		defer s.cfg.Observer.SessionClosed(kind)
		defer admission.Join(sess)() // told why if its connection is ended
		if refused := s.track(sess); refused != 0 {
			wish.Errorln(sess, "ssh2048: "+refused.Text(s.lim.IdleTimeout))
			_ = sess.Exit(refused.ExitStatus())
			return
		}
		defer s.untrack(sess)
		s.endIfMissedMerge(sess)
		// A ban made since identify checked is met here, or by endBanned,
		// which sees the session tracked now.
		if s.refuseBanned(sess, sess.Key(), sess.Player) {
			return
		}
		_, _, hasPty := sess.Pty()
		switch {
		case sess.RawCommand() != "":
			_ = sess.Exit(s.commands.Run(sess))
		case hasPty:
			_ = sess.Exit(s.runTUI(sess))
		default:
			wish.Errorln(sess, "ssh2048: no terminal; connect with `ssh -t` to play, or run `help` for the commands.")
			_ = sess.Exit(wire.ExitUsage)
		}
		next(sess)
	}
}
