package command

import (
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/tui/reader"
	"github.com/ssh2048/ssh2048/tui/viewer"
)

// The commands that show games rather than play them: watch, tv, replay
// and history. Each opens a screen (they need `ssh -t`); what they are
// asked for is looked up first, so that a name no one plays or a game
// that does not exist gets a line on stderr and its exit status, not a
// screen. A spectator is read-only: the game service hands it the newest
// snapshot of the game, never a queue, so however slow its connection
// the player it watches never waits for it.

// viewOptions are a viewing screen's, for sess.
func (t *Table) viewOptions(sess *session.Session) viewer.ViewOptions {
	// The session's loop waits for the game a spectator watches (see
	// the server's screen loop): no goroutine of the spectator's own.
	return viewer.ViewOptions{Games: t.viewGames, Context: sess.Context(), Theme: ThemeOf(sess.Settings), Woken: true,
		Player: sess.Player, From: session.RemoteIP(sess.RemoteAddr())}
}

// readerViewOptions are a viewing screen's for screen readers
// (ReaderOf), for sess: the same games, waited for by the session's loop
// as the visual screens' are.
func (t *Table) readerViewOptions(sess *session.Session) reader.ViewOptions {
	return reader.ViewOptions{Games: t.viewGames, Context: sess.Context(), Woken: true}
}

// viewer is the opened screen of a command that only shows games, with
// the lines a spectator is told when the session ends (there is no game
// of theirs to speak of).
func (t *Table) viewer(model tea.Model) Screen {
	return Screen{Model: model, Text: viewerNoticeText(t.cfg.IdleTimeout)}
}

// viewerNoticeText is what a spectator is told when the server ends the
// session.
func viewerNoticeText(idle time.Duration) func(session.Notice) string {
	return func(n session.Notice) string {
		switch n {
		case session.Shutdown:
			return "The server is restarting; reconnect in a moment to watch again."
		case session.Idle:
			return "No input for " + session.Spelled(idle) + ", so the server closed this session; reconnect to watch again."
		case session.Keepalive:
			return "Your connection stopped answering, so the server closed this session."
		case session.Flooded:
			return session.FloodedText
		case session.Moved:
			return session.MovedText
		}
		return "The server closed this session."
	}
}

// liveGames is the game service for the viewing screens, with its Live
// read at most once per liveEvery for each size: every TV asks each
// second, and one look serves them all (a look locks every game in play
// in turn).
type liveGames struct {
	*game.Service
	mu    sync.Mutex
	cache map[int]liveLook
}

type liveLook struct {
	at    time.Time
	snaps []game.Snapshot
}

// liveEvery is how old a look at the games in play TV may be shown.
const liveEvery = 500 * time.Millisecond

func newLiveGames(svc *game.Service) *liveGames {
	return &liveGames{Service: svc, cache: make(map[int]liveLook)}
}

// Live is game.Service.Live, at most liveEvery old. The snapshots are
// shared: callers only read them.
func (l *liveGames) Live(size int) []game.Snapshot {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c, ok := l.cache[size]; ok && time.Since(c.at) < liveEvery {
		return c.snaps
	}
	snaps := l.Service.Live(size)
	l.cache[size] = liveLook{time.Now(), snaps}
	return snaps
}
