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
		run:     runGrant,
	}
}

func runGrant(ctx context.Context, e *Env, fs *flags) int {
	reason := fs.reasonFlag()
	if code, ok := fs.parse(1); !ok {
		return code
	}
	a, code, ok := fs.reason(*reason)
	if !ok {
		return code
	}
	p, code, ok := e.player(ctx, "grant", fs.pos[0])
	if !ok {
		return code
	}
	if err := e.Store.Grant(ctx, a, p.ID); err != nil {
		return e.fail("grant", err)
	}
	e.changed("grant")
	fmt.Fprintf(e.Out, "%s is an admin\n", who(p))
	return wire.ExitOK
}
