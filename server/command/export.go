package server

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/record"
	"github.com/ssh2048/ssh2048/wire"
)

// runExport prints the record of an ended game (docs/record-format.md).
func (s *Server) runExport(sess *session, args []string) int {
	fs := newFlagSet(sess, "export", "GAME")
	id, code, ok := gameArg(sess, fs, args)
	if !ok {
		return code
	}
	ctx, cancel := context.WithTimeout(sess.Context(), readTimeout)
	defer cancel()
	rec, err := s.games.Record(ctx, id)
	if code, ok := s.gameError(sess, "export", id, err); !ok {
		return code
	}
	if err := record.Write(sess, rec); err != nil {
		return wire.ExitOK // the client went away
	}
	return wire.ExitOK
}

// runVerify replays a stored game and checks what the store says of it.
func (s *Server) runVerify(sess *session, args []string) int {
	fs := newFlagSet(sess, "verify", "GAME")
	id, code, ok := gameArg(sess, fs, args)
	if !ok {
		return code
	}
	ctx, cancel := context.WithTimeout(sess.Context(), readTimeout)
	defer cancel()
	v, err := s.games.Verify(ctx, id)
	if code, ok := s.gameError(sess, "verify", id, err); !ok {
		return code
	}
	if !v.Confirmed() {
		fmt.Fprintf(sess, "refuted: game %d: %s\n", id, strings.Join(v.Mismatches, "; "))
		return wire.ExitRefuted
	}
	g := v.Replayed
	moves := "moves"
	if g.Moves() == 1 {
		moves = "move"
	}
	fmt.Fprintf(sess, "confirmed: game %d, %d×%d, score %d, max tile %d, %d %s%s\n",
		id, g.Size(), g.Size(), g.Score(), g.MaxTile(), g.Moves(), moves, map[bool]string{true: ", won", false: ""}[g.Won()])
	return wire.ExitOK
}

// gameArg reads the one argument, a game id (as `scores --json` lists it
// in game_id), after the flags.
func gameArg(sess *session, fs *commandFlags, args []string) (int64, int, bool) {
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
func (s *Server) gameError(sess *session, cmd string, id int64, err error) (code int, ok bool) {
	switch {
	case err == nil:
		return wire.ExitOK, true
	case errors.Is(err, game.ErrNoGame):
		fmt.Fprintf(sess.Stderr(), "%s: there is no game %d\n", cmd, id)
		return wire.ExitNotFound, false
	case errors.Is(err, game.ErrDailyOn):
		fmt.Fprintf(sess.Stderr(), "%s: game %d is of today's daily challenge; everyone plays the day on the same tiles, so it is shown once the day is over (UTC).\n", cmd, id)
		return wire.ExitInPlay, false
	case errors.Is(err, game.ErrInPlay):
		fmt.Fprintf(sess.Stderr(), "%s: game %d is still being played; its record (and seed) stay secret until it ends. Watch or replay it instead.\n", cmd, id)
		return wire.ExitInPlay, false
	}
	s.log.Error(cmd, "game", id, "err", err)
	fmt.Fprintf(sess.Stderr(), "ssh2048: could not read game %d; try again later.\n", id)
	return wire.ExitError, false
}
