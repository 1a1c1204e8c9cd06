package server

import (
	"time"

	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/store"
)

// goneKept is how long the server remembers an account a link deleted,
// for the logins that looked their key up just before the link
// committed and reach their session after the server heard of it (see
// track): far longer than a login takes from its lookup to its session.
const goneKept = 10 * time.Minute

// endMerged ends the sessions open here on an account a link deleted
// (store.MergeWatcher: a link here or on another node), every key of it:
// such a session plays as an account that is no more, and would show
// its old name and a newcomer's rating, and fail to open a game. Each is
// told as a ban tells (endBanned), with session.Moved's line and status:
// its screen restores the terminal and says the line, a command says it
// on stderr; its game is saved, as every move is before it is shown. The
// session that ran the link (session.Session.Links) says its own line.
func (s *Server) endMerged(gone store.AccountID) {
	var ending []*session.Session
	now := time.Now()
	s.mu.Lock()
	for id, at := range s.gone {
		if now.Sub(at) > goneKept {
			delete(s.gone, id)
		}
	}
	s.gone[gone] = now
	for sess := range s.sessions {
		if sess.Player.ID == int64(gone) && !sess.Linking() {
			ending = append(ending, sess)
		}
	}
	s.mu.Unlock()
	line := "ssh2048: " + session.Moved.Text(s.lim.IdleTimeout)
	for _, sess := range ending {
		s.log.Info("session of an account merged away ended", "key", sess.Key(), "player", int64(gone))
		sess.Notify(session.Moved)
		time.AfterFunc(endGrace, func() { s.closeEnded(sess, line, session.Moved.ExitStatus()) })
	}
}

// goneAccount reports whether id is an account a link deleted lately
// (endMerged); s.mu is held.
func (s *Server) goneAccount(id int64) bool {
	_, gone := s.gone[store.AccountID(id)]
	return gone && id != 0
}
