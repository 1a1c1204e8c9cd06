package moderation

import "context"

func revokeCommand() subcommand {
	return subcommand{
		name:    "revoke",
		args:    "PLAYER --reason TEXT",
		summary: "end a granted admin (the keys file's admins leave with their line)",
		run:     func(ctx context.Context, e *Env, fs *flags) int { return runGrant(ctx, e, fs, false) },
	}
}
