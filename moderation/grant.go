package moderation

import (
	"context"
	"fmt"

	"github.com/ssh2048/ssh2048/wire"
)

func grantCommand() subcommand {
	return subcommand{
		name:    "grant",
		args:    "PLAYER --reason TEXT",
		summary: "make a player an admin",
		run:     func(ctx context.Context, e *Env, fs *flags) int { return runGrant(ctx, e, fs, true) },
	}
}

// runGrant runs grant, and revoke (revoke.go).
func runGrant(ctx context.Context, e *Env, fs *flags, grant bool) int {
	reason := fs.reasonFlag()
	if code, ok := fs.parse(1); !ok {
		return code
	}
	a, code, ok := fs.reason(*reason)
	if !ok {
		return code
	}
	name := fs.c.name
	p, code, ok := e.player(ctx, name, fs.pos[0])
	if !ok {
		return code
	}
	err, now := e.Store.Grant(ctx, a, p.ID), "is an admin"
	if !grant {
		err, now = e.Store.Revoke(ctx, a, p.ID), "is an admin no more"
	}
	if err != nil {
		return e.fail(name, err)
	}
	e.changed(name)
	fmt.Fprintf(e.Out, "%s %s\n", who(p), now)
	return wire.ExitOK
}
