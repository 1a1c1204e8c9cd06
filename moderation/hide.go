package moderation

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/ssh2048/ssh2048/wire"
)

func hideCommand() subcommand {
	return subcommand{
		name:    "hide",
		args:    "GAME|PLAYER --reason TEXT",
		summary: "take a game, or all of a player's, off every board (kept; see unhide)",
		run:     func(ctx context.Context, e *Env, fs *flags) int { return runHide(ctx, e, fs, true) },
	}
}

// runHide runs hide, and unhide (unhide.go).
func runHide(ctx context.Context, e *Env, fs *flags, hide bool) int {
	reason := fs.reasonFlag()
	if code, ok := fs.parse(1); !ok {
		return code
	}
	a, code, ok := fs.reason(*reason)
	if !ok {
		return code
	}
	name := fs.c.name
	if id, ok := gameID(fs.pos[0]); ok {
		err := e.Store.HideGame(ctx, a, id)
		if !hide {
			err = e.Store.UnhideGame(ctx, a, id)
		}
		if err != nil {
			return e.fail(name, err)
		}
		e.changed(name)
		fmt.Fprintf(e.Out, "%s game %d\n", past(hide), id)
		return wire.ExitOK
	}
	p, code, ok := e.player(ctx, name, fs.pos[0])
	if !ok {
		return code
	}
	err := e.Store.HidePlayer(ctx, a, p.ID)
	if !hide {
		err = e.Store.UnhidePlayer(ctx, a, p.ID)
	}
	if err != nil {
		return e.fail(name, err)
	}
	e.changed(name)
	fmt.Fprintf(e.Out, "%s %s and their games\n", past(hide), who(p))
	return wire.ExitOK
}

// gameID reads GAME: a number, or game:NUMBER. A player by id is #ID.
func gameID(arg string) (int64, bool) {
	id, err := strconv.ParseInt(strings.TrimPrefix(arg, "game:"), 10, 64)
	return id, err == nil && id > 0
}

func past(hide bool) string {
	if hide {
		return "hid"
	}
	return "put back"
}
