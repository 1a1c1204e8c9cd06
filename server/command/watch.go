package server

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/tui"
	"github.com/ssh2048/ssh2048/wire"
)

// The commands that show games rather than play them: watch, tv, replay
// and history. Each opens a screen (they need `ssh -t`); what they are
// asked for is looked up first, so that a name no one plays or a game
// that does not exist gets a line on stderr and its exit status, not a
// screen. A spectator is read-only: the game service hands it the newest
// snapshot of the game, never a queue, so however slow its connection
// the player it watches never waits for it.

// runWatch is `watch NAME|#TAG|GAME`.
func (s *Server) runWatch(sess *session, args []string) int {
	return s.runOpened(sess, func() openedScreen {
		fs := newFlagSet(sess, "watch", "NAME|#TAG|GAME")
		target, code, ok := oneArg(sess, fs, args, "a player's name (as the leaderboard shows it), #tag, or game id")
		if !ok {
			return openedScreen{code: code}
		}
		if !hasTerminal(sess, "watch") {
			return openedScreen{code: wire.ExitUsage}
		}
		w, who, err := s.findWatch(sess.Context(), target)
		if err != nil {
			fmt.Fprintf(sess.Stderr(), "watch: %v\n", err)
			switch {
			case errors.Is(err, errLookup):
				return openedScreen{code: wire.ExitError}
			case errors.Is(err, game.ErrDailyOn):
				return openedScreen{code: wire.ExitInPlay}
			}
			return openedScreen{code: wire.ExitNotFound}
		}
		return s.viewer(tui.NewWatch(s.viewOptions(sess), w, who))
	})
}

// worded is an error in the words the player reads, still err by kind.
type worded struct {
	text string
	err  error
}

func (e worded) Error() string { return e.text }
func (e worded) Unwrap() error { return e.err }

// errLookup: a game could not be read to say why it cannot be watched.
var errLookup = errors.New("could not look the game up; try again later")

// findWatch starts watching what target names: a game id, or a player by
// name or #tag (who is then target, for the screen to follow them to
// their next game). Its errors are for the player to read.
func (s *Server) findWatch(ctx context.Context, target string) (w *game.Watch, who string, err error) {
	if id, err := strconv.ParseInt(target, 10, 64); err == nil && id > 0 {
		w, err := s.games.Watch(id)
		switch {
		case err == nil:
			return w, "", nil
		case errors.Is(err, game.ErrDailyOn):
			return nil, "", worded{fmt.Sprintf("game %d is of today's daily challenge; everyone plays the day on the same tiles, so it is shown once it is over", id), err}
		}
		// A player may be called 42.
		if w, err := s.games.WatchPlayer(target); err == nil {
			return w, target, nil
		}
		return nil, "", s.whyNotLive(ctx, id)
	}
	w, err = s.games.WatchPlayer(target)
	switch {
	case err == nil:
		return w, target, nil
	case errors.Is(err, game.ErrDailyOn):
		return nil, "", worded{fmt.Sprintf("%.40q is playing today's daily challenge; everyone plays the day on the same tiles, so it is shown once it is over", target), err}
	}
	if strings.HasPrefix(target, "#") {
		return nil, "", fmt.Errorf("no player whose tag is %.40q is playing right now", target)
	}
	return nil, "", fmt.Errorf("no one named %.40q is playing right now (names as the leaderboard shows them, case included; #tag for look-alikes)", target)
}

// whyNotLive says why game id cannot be watched: there is no such game,
// or no one plays it right now (it is replayed instead).
func (s *Server) whyNotLive(ctx context.Context, id int64) error {
	ctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	r, err := s.games.Replay(ctx, id)
	switch {
	case errors.Is(err, game.ErrNoGame):
		return fmt.Errorf("there is no game %d", id)
	case err != nil:
		s.log.Error("watch", "game", id, "err", err)
		return fmt.Errorf("game %d: %w", id, errLookup)
	case r.Ended:
		return fmt.Errorf("game %d has ended; `replay %d` shows it", id, id)
	}
	return fmt.Errorf("no one is playing game %d right now; `replay %d` shows it up to its last move", id, id)
}

// runTV is `tv [--size N]`.
func (s *Server) runTV(sess *session, args []string) int {
	return s.runOpened(sess, func() openedScreen {
		fs := newFlagSet(sess, "tv", "[--size N]")
		size := fs.Int("size", 4, fmt.Sprintf("board size, %d to %d", engine.MinSize, engine.MaxSize))
		if code, ok := parseScreenFlags(fs, args, size); !ok {
			return openedScreen{code: code}
		}
		return s.viewer(tui.NewTV(s.viewOptions(sess), *size))
	})
}

// runReplay is `replay GAME`.
func (s *Server) runReplay(sess *session, args []string) int {
	return s.runOpened(sess, func() openedScreen {
		fs := newFlagSet(sess, "replay", "GAME")
		id, code, ok := gameArg(sess, fs, args)
		if !ok {
			return openedScreen{code: code}
		}
		if !hasTerminal(sess, "replay") {
			return openedScreen{code: wire.ExitUsage}
		}
		ctx, cancel := context.WithTimeout(sess.Context(), readTimeout)
		defer cancel()
		r, err := s.games.Replay(ctx, id)
		if code, ok := s.gameError(sess, "replay", id, err); !ok {
			return openedScreen{code: code}
		}
		return s.viewer(tui.NewReplay(s.viewOptions(sess), r))
	})
}

// runHistory is `history`: the player's own games, to replay.
func (s *Server) runHistory(sess *session, args []string) int {
	return s.runOpened(sess, func() openedScreen {
		fs := newFlagSet(sess, "history", "")
		if code, ok := parseFlags(fs, args); !ok {
			return openedScreen{code: code}
		}
		if !hasTerminal(sess, "history") {
			return openedScreen{code: wire.ExitUsage}
		}
		if sess.player.Guest {
			fmt.Fprintln(sess.Stderr(), "history: guests' games are not kept; connect with an SSH key to keep yours.")
			return openedScreen{code: wire.ExitNotFound}
		}
		return s.viewer(tui.NewHistory(s.viewOptions(sess), sess.player))
	})
}

// oneArg reads the one argument after the flags; what describes it in
// the message when it is missing.
func oneArg(sess *session, fs *commandFlags, args []string, what string) (string, int, bool) {
	if code, ok := fs.parse(args); !ok {
		return "", code, false
	}
	if fs.NArg() != 1 || fs.Arg(0) == "" {
		return "", fs.mistake("want one argument: %s", what), false
	}
	return fs.Arg(0), wire.ExitOK, true
}

// viewOptions are a viewing screen's, for sess.
func (s *Server) viewOptions(sess *session) tui.ViewOptions {
	// The session's loop waits for the game a spectator watches (see
	// watchScreen): no goroutine of the spectator's own.
	return tui.ViewOptions{Games: s.viewGames, Context: sess.Context(), Woken: true}
}

// viewer is the opened screen of a command that only shows games, with
// the lines a spectator is told when the session ends (there is no game
// of theirs to speak of).
func (s *Server) viewer(model tea.Model) openedScreen {
	return openedScreen{model: model, text: viewerNoticeText(s.lim.IdleTimeout)}
}

// viewerNoticeText is what a spectator is told when the server ends the
// session.
func viewerNoticeText(idle time.Duration) func(notice) string {
	return func(n notice) string {
		switch n {
		case noticeShutdown:
			return "The server is restarting; reconnect in a moment to watch again."
		case noticeIdle:
			return "No input for " + spelled(idle) + ", so the server closed this session; reconnect to watch again."
		case noticeKeepalive:
			return "Your connection stopped answering, so the server closed this session."
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
