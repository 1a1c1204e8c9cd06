package moderation

import (
	"context"
	"fmt"

	"github.com/ssh2048/ssh2048/wire"
)

func revokeCommand() subcommand {
	return subcommand{
		name:    "revoke",
		args:    "PLAYER --reason TEXT",
		summary: "end a granted admin (the keys file's admins leave with their line)",
		run:     runRevoke,
	}
}

func runRevoke(ctx context.Context, e *Env, fs *flags) int {
	reason := fs.reasonFlag()
	if code, ok := fs.parse(1); !ok {
		return code
	}
	a, code, ok := fs.reason(*reason)
	if !ok {
		return code
	}
	p, code, ok := e.player(ctx, "revoke", fs.pos[0])
	if !ok {
		return code
	}
	if err := e.Store.Revoke(ctx, a, p.ID); err != nil {
		return e.fail("revoke", err)
	}
	e.changed("revoke")
	fmt.Fprintf(e.Out, "%s is an admin no more\n", who(p))
	return wire.ExitOK
}
