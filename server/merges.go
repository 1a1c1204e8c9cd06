package server

import (
	"context"
	"time"

	"charm.land/ssh"
	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/store"
)

// goneKept is how long the server remembers an account a link deleted,
// for the logins that looked their key up just before the link
// committed and reach their session after the server heard of it (see
// track): far longer than a login takes from its lookup to its session.
const goneKept = 10 * time.Minute

// endMerged ends the sessions open here on an account a link deleted
// (store.MergeWatcher: a link here or on another node, told, or found
// by endMissedMerges), every key of it: such a session plays as an
// account that is no more, and would show its old name and a
// newcomer's rating, and fail to open a game. Each is
// told as a ban tells (endBanned), with session.Moved's line and status:
// its screen restores the terminal and says the line, a command says it
// on stderr; its game is saved, as every move is before it is shown. The
// session that ran the link (session.Session.Links) says its own line.
func (s *Server) endMerged(gone store.AccountID) {
	var ending []*session.Session
	now := time.Now()
	s.mu.Lock()
	if _, told := s.gone[gone]; told {
		// Told twice (its notice, and endMissedMerges's look): its
		// sessions are ended already, and new ones refused.
		s.mu.Unlock()
		return
	}
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

// goneAsked bounds endMissedMerges's question to the store.
const goneAsked = 10 * time.Second

// endMissedMerges ends the sessions open here on accounts that links
// deleted while the store could not tell (store.MergeWatcher's missed: a
// bus that listens again after losing its connection), as endMerged
// does: it asks the store, once, which of the sessions' accounts are
// gone.
func (s *Server) endMissedMerges() {
	var ids []store.AccountID
	asked := make(map[int64]bool)
	s.mu.Lock()
	for sess := range s.sessions {
		if id := sess.Player.ID; !sess.Player.Guest && id != 0 && !asked[id] {
			asked[id] = true
			ids = append(ids, store.AccountID(id))
		}
	}
	s.mu.Unlock()
	s.endGone(ids)
}

// endGone asks the store, once, which of ids are accounts links deleted,
// and ends their sessions as endMerged does.
func (s *Server) endGone(ids []store.AccountID) {
	if len(ids) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), goneAsked)
	defer cancel()
	gone, err := s.merges.GoneAccounts(ctx, ids)
	if err != nil {
		s.log.Warn("could not look for the merges the store could not tell of", "err", err)
		return
	}
	for _, id := range gone {
		s.endMerged(id)
	}
}

// lostNewsKey is the session context's note of Server.lostNews when the
// login looked its key's account up (noteLostNews).
var lostNewsKey = &contextKey{"lost merge news"}

// noteLostNews notes in the login's context, before it looks its key's
// account up, how many times the store has said it may have missed news
// of links: see endIfMissedMerge.
func (s *Server) noteLostNews(ctx ssh.Context) { ctx.SetValue(lostNewsKey, s.lostNews.Load()) }

// endIfMissedMerge ends sess, tracked, as endMerged does if a link the
// server did not hear of deleted its account. Neither endMerged nor
// track meets such a login when the link committed while the store
// could not tell, after the login's lookup, and endMissedMerges listed
// the sessions once the store could tell again, before this one was
// tracked: the store has then said so (lostNews) since the lookup. Only
// those logins are asked about: a lookup made once the store can tell
// again sees every link committed before, and a link after is told. The
// store is asked off the login's path; the session opens meanwhile, and
// is ended as those open are.
func (s *Server) endIfMissedMerge(sess *session.Session) {
	noted, ok := sess.Context().Value(lostNewsKey).(uint64)
	if !ok || s.merges == nil || sess.Player.Guest || sess.Player.ID == 0 || s.lostNews.Load() == noted {
		return
	}
	go s.endGone([]store.AccountID{store.AccountID(sess.Player.ID)})
}

// goneAccount reports whether id is an account a link deleted lately
// (endMerged); s.mu is held.
func (s *Server) goneAccount(id int64) bool {
	_, gone := s.gone[store.AccountID(id)]
	return gone && id != 0
}
