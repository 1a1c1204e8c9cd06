package command

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/tui/reader"
	"github.com/ssh2048/ssh2048/tui/viewer"
	"github.com/ssh2048/ssh2048/wire"
)

// watchCommand is `watch NAME|#TAG|GAME`.
func watchCommand() Command {
	return Command{
		Name:    "watch",
		Args:    "NAME|#TAG|GAME",
		Summary: "watch a game being played, as its player sees it (needs ssh -t)",
		Screen:  true,
		run:     (*Table).runWatch,
	}
}

func (t *Table) runWatch(sess *session.Session, fs *commandFlags, args []string) int {
	return t.runOpened(sess, func() Screen {
		target, code, ok := oneArg(sess, fs, args, "a player's name (as the leaderboard shows it), #tag, or game id")
		if !ok {
			return Screen{Code: code}
		}
		if !hasTerminal(sess, "watch") {
			return Screen{Code: wire.ExitUsage}
		}
		w, who, err := t.findWatch(sess.Context(), target)
		if err != nil {
			fmt.Fprintf(sess.Stderr(), "watch: %v\n", err)
			switch {
			case errors.Is(err, errLookup):
				return Screen{Code: wire.ExitError}
			case errors.Is(err, game.ErrDailyOn), errors.Is(err, game.ErrRaceOn):
				return Screen{Code: wire.ExitInPlay}
			}
			return Screen{Code: wire.ExitNotFound}
		}
		if ReaderOf(sess.Settings) {
			return t.viewer(reader.NewWatch(t.readerViewOptions(sess), w, who))
		}
		return t.viewer(viewer.NewWatch(t.viewOptions(sess), w, who))
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
func (t *Table) findWatch(ctx context.Context, target string) (w *game.Watch, who string, err error) {
	if id, err := strconv.ParseInt(target, 10, 64); err == nil && id > 0 {
		w, err := t.games.Watch(ctx, id)
		switch {
		case err == nil:
			return w, "", nil
		case errors.Is(err, game.ErrDailyOn):
			return nil, "", worded{fmt.Sprintf("game %d is of today's daily challenge; everyone plays the day on the same tiles, so it is shown once it is over", id), err}
		}
		// A player may be called 42.
		if w, err := t.games.WatchPlayer(ctx, target); err == nil {
			return w, target, nil
		}
		return nil, "", t.whyNotLive(ctx, id)
	}
	w, err = t.games.WatchPlayer(ctx, target)
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
func (t *Table) whyNotLive(ctx context.Context, id int64) error {
	ctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	r, err := t.games.Replay(ctx, id)
	switch {
	case errors.Is(err, game.ErrNoGame):
		return fmt.Errorf("there is no game %d", id)
	case errors.Is(err, game.ErrRaceOn):
		return worded{fmt.Sprintf("no one is playing game %d right now; it is of a race that may still be running, and is replayed once the race is over", id), err}
	case err != nil:
		t.log.Error("watch", "game", id, "err", err)
		return fmt.Errorf("game %d: %w", id, errLookup)
	case r.Ended:
		return fmt.Errorf("game %d has ended; `replay %d` shows it", id, id)
	}
	return fmt.Errorf("no one is playing game %d right now; `replay %d` shows it up to its last move", id, id)
}

// oneArg reads the one argument after the flags; what describes it in
// the message when it is missing.
func oneArg(sess *session.Session, fs *commandFlags, args []string, what string) (string, int, bool) {
	if code, ok := fs.parse(args); !ok {
		return "", code, false
	}
	if fs.NArg() != 1 || fs.Arg(0) == "" {
		return "", fs.mistake("want one argument: %s", what), false
	}
	return fs.Arg(0), wire.ExitOK, true
}
