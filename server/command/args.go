package command

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/wire"
)

// gameArg reads the one argument, a game id (as `scores --json` lists it
// in game_id), after the flags.
func gameArg(sess *session.Session, fs *commandFlags, args []string) (int64, int, bool) {
	if code, ok := fs.parse(args); !ok {
		return 0, code, false
	}
	if fs.NArg() != 1 {
		return 0, fs.mistake("want one game id"), false
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(fs.Arg(0), "#"), 10, 64)
	if err != nil || id <= 0 {
		fmt.Fprintf(sess.Stderr(), "%s: %.40q is not a game id (a number, as `scores --json` shows in game_id)\n", fs.Name(), fs.Arg(0))
		return 0, wire.ExitUsage, false
	}
	return id, wire.ExitOK, true
}

// gameError tells the player why a game could not be read; ok is false
// when there was an error, and code is then the exit status.
func (t *Table) gameError(sess *session.Session, cmd string, id int64, err error) (code int, ok bool) {
	switch {
	case err == nil:
		return wire.ExitOK, true
	case errors.Is(err, game.ErrNoGame):
		fmt.Fprintf(sess.Stderr(), "%s: there is no game %d\n", cmd, id)
		return wire.ExitNotFound, false
	case errors.Is(err, game.ErrDailyOn):
		fmt.Fprintf(sess.Stderr(), "%s: game %d is of today's daily challenge; everyone plays the day on the same tiles, so it is shown once the day is over (UTC).\n", cmd, id)
		return wire.ExitInPlay, false
	case errors.Is(err, game.ErrRaceOn):
		fmt.Fprintf(sess.Stderr(), "%s: game %d is of a race that may still be running; its racers share its tiles, so it is shown %d minutes after it started.\n", cmd, id, int(game.MaxRaceTime.Minutes()))
		return wire.ExitInPlay, false
	case errors.Is(err, game.ErrInPlay):
		fmt.Fprintf(sess.Stderr(), "%s: game %d is still being played; its record (and seed) stay secret until it ends. Watch or replay it instead.\n", cmd, id)
		return wire.ExitInPlay, false
	}
	t.log.Error(cmd, "game", id, "err", err)
	fmt.Fprintf(sess.Stderr(), "ssh2048: could not read game %d; try again later.\n", id)
	return wire.ExitError, false
}
