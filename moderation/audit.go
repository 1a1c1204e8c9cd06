package moderation

import (
	"context"
	"fmt"
	"time"

	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/wire"
)

func auditCommand() subcommand {
	return subcommand{
		name:    "audit",
		args:    "[--since 7d|2026-11-27] [--limit 100]",
		summary: "every admin action since then: when, who, what, why",
		run:     runAudit,
	}
}

func runAudit(ctx context.Context, e *Env, fs *flags) int {
	since := fs.String("since", "7d", "a duration back from now (30m, 12h, 7d) or a day (2006-01-02, UTC)")
	limit := fs.Int("limit", 100, "the last this many (1 to 1000)")
	if code, ok := fs.parse(0); !ok {
		return code
	}
	if *limit < 1 || *limit > maxList {
		return fs.mistake("--limit %d: must be 1 to %d", *limit, maxList)
	}
	from, err := time.Parse(time.DateOnly, *since)
	if err != nil {
		d, derr := ParseDuration(*since)
		if derr != nil {
			return fs.mistake("--since: %v, nor a day (2006-01-02)", derr)
		}
		from = e.now().Add(-d)
	}
	rows, err := e.Store.Audit(ctx, from, *limit)
	if err != nil {
		return e.fail("audit", err)
	}
	if len(rows) == 0 {
		fmt.Fprintf(e.Out, "no admin actions since %s\n", when(from))
	}
	for _, a := range rows {
		printAudit(e, a)
	}
	return wire.ExitOK
}

// printAudit writes one audit row, each of its texts cleaned.
func printAudit(e *Env, a store.AuditEntry) {
	detail := ""
	if d := store.CleanText(a.Detail); d != "" {
		detail = " (" + d + ")"
	}
	fmt.Fprintf(e.Out, "%s %s: %s %s%s: %s\n", a.At.UTC().Format("2006-01-02 15:04:05"),
		store.CleanText(a.Actor), store.CleanText(a.Action), store.CleanText(a.Target), detail, store.CleanText(a.Reason))
}
