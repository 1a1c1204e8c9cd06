package moderation

import "context"

func unhideCommand() subcommand {
	return subcommand{
		name:    "unhide",
		args:    "GAME|PLAYER --reason TEXT",
		summary: "put back what hide took off the boards; ranks are recomputed",
		run:     func(ctx context.Context, e *Env, fs *flags) int { return runHide(ctx, e, fs, false) },
	}
}
