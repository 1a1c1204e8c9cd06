package moderation

import (
	"context"
	"fmt"
	"time"

	"github.com/ssh2048/ssh2048/wire"
)

// defaultLock is how long a rename holds against the player's own name.
const defaultLock = "30d"

func renameCommand() subcommand {
	return subcommand{
		name:    "rename",
		args:    "PLAYER NAME [--lock 30d] --reason TEXT",
		summary: "set a player's name, which their own does not replace until the lock ends",
		run:     runRename,
	}
}

func runRename(ctx context.Context, e *Env, fs *flags) int {
	reason := fs.reasonFlag()
	lock := fs.String("lock", defaultLock, "how long the name holds (30m, 12h, 7d, 2w; 0: not locked)")
	if code, ok := fs.parse(2); !ok {
		return code
	}
	a, code, ok := fs.reason(*reason)
	if !ok {
		return code
	}
	var until time.Time
	if *lock != "0" {
		d, err := ParseDuration(*lock)
		if err != nil {
			return fs.mistake("--lock: %v", err)
		}
		until = e.now().Add(d)
	}
	p, code, ok := e.player(ctx, "rename", fs.pos[0])
	if !ok {
		return code
	}
	old := p.Name
	p, err := e.Store.Rename(ctx, a, p.ID, fs.pos[1], until)
	if err != nil {
		return e.fail("rename", err)
	}
	e.changed("rename")
	locked := "not locked"
	if !until.IsZero() {
		locked = "locked until " + when(until)
	}
	fmt.Fprintf(e.Out, "renamed #%d %q to %q, %s\n", p.ID, old, p.Name, locked)
	return wire.ExitOK
}
