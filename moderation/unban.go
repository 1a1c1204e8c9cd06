package moderation

import (
	"context"
	"fmt"

	"github.com/ssh2048/ssh2048/wire"
)

func unbanCommand() subcommand {
	return subcommand{
		name:    "unban",
		args:    "PLAYER|KEY|RANGE --reason TEXT",
		summary: "lift a ban, as ban named it",
		run:     runUnban,
	}
}

func runUnban(ctx context.Context, e *Env, fs *flags) int {
	reason := fs.reasonFlag()
	if code, ok := fs.parse(1); !ok {
		return code
	}
	a, code, ok := fs.reason(*reason)
	if !ok {
		return code
	}
	spec, code, ok := e.banTarget(ctx, fs, fs.pos[0])
	if !ok {
		return code
	}
	b, err := e.Store.Unban(ctx, a, spec.Kind, spec.Target)
	if err != nil {
		return e.fail("unban", err)
	}
	e.changed("unban")
	fmt.Fprintf(e.Out, "lifted the ban of %s\n", describe(b))
	return wire.ExitOK
}
