package moderation

import (
	"context"
	"fmt"

	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/wire"
)

func bansCommand() subcommand {
	return subcommand{
		name:    "bans",
		summary: "list the bans in force, newest first",
		run:     runBans,
	}
}

func runBans(ctx context.Context, e *Env, fs *flags) int {
	if code, ok := fs.parse(0); !ok {
		return code
	}
	bans, err := e.Store.Bans(ctx, e.now())
	if err != nil {
		return e.fail("bans", err)
	}
	if len(bans) == 0 {
		fmt.Fprintln(e.Out, "no bans in force")
	}
	for _, b := range bans {
		shown := ""
		if b.ShowReason {
			shown = " (reason shown)"
		}
		fmt.Fprintf(e.Out, "%s %s, by %s on %s%s: %s\n", describe(b), untilText(b), store.CleanText(b.By), when(b.At), shown, store.CleanText(b.Reason))
	}
	return wire.ExitOK
}
