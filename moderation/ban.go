package moderation

import (
	"context"
	"fmt"

	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/wire"
)

func banCommand() subcommand {
	return subcommand{
		name:    "ban",
		args:    "PLAYER|KEY|RANGE [--for 7d] [--show-reason] --reason TEXT",
		summary: "ban a player, a key (SHA256:…) or an address range, for a time or for good",
		run:     runBan,
	}
}

func runBan(ctx context.Context, e *Env, fs *flags) int {
	reason := fs.reasonFlag()
	length := fs.String("for", "", "how long (30m, 12h, 7d, 2w); left out: until lifted")
	show := fs.Bool("show-reason", false, "tell the banned the reason as well as until when")
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
	if *length != "" {
		d, err := ParseDuration(*length)
		if err != nil {
			return fs.mistake("--for: %v", err)
		}
		spec.Until = e.now().Add(d)
	}
	spec.ShowReason = *show
	// A range that holds the admin's own address would cut the admin
	// off before their next login could lift it.
	if spec.Kind == store.BanCIDR && e.Addr.IsValid() {
		if p := (store.Ban{Kind: store.BanCIDR, Target: spec.Target}).Prefix(); p.Contains(e.Addr.Unmap()) {
			fmt.Fprintf(e.Err, "admin ban: range %s holds your own address %s: %s\n", spec.Target, e.Addr, store.ErrSelf)
			return wire.ExitAdminRefused
		}
	}
	b, err := e.Store.Ban(ctx, a, spec)
	if err != nil {
		return e.fail("ban", err)
	}
	e.changed("ban")
	fmt.Fprintf(e.Out, "banned %s %s: %s\n", describe(b), untilText(b), store.CleanText(b.Reason))
	return wire.ExitOK
}

// untilText says how long a ban holds.
func untilText(b store.Ban) string {
	if b.Until.IsZero() {
		return "until lifted"
	}
	return "until " + when(b.Until)
}
