// Package moderation is how an operator governs a public server: the admin
// commands (ban, unban, bans, grant, revoke, rename, hide, unhide,
// players, player, audit), one file each, which run the same over SSH
// (`ssh host admin …`, for admins only) and offline (`ssh2048 admin …`);
// the ban list every node checks its logins against, held in memory; the
// admin keys file; and the blocked names.
//
// It speaks to storage only through store.Moderator, which writes every
// decision with its audit row in one transaction. What a command prints
// and its exit statuses are the contract of docs/moderation.md.
package moderation

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"strings"
	"time"

	"github.com/ssh2048/ssh2048/internal/flagtext"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/wire"
)

// Env is where an admin command runs and who runs it.
type Env struct {
	Store store.Moderator
	Out   io.Writer
	Err   io.Writer
	// Actor is the admin (ActorID and Actor; each command sets Reason).
	Actor store.Action
	// Addr is the admin's address over SSH, so that a range ban does not
	// shut them out; invalid offline.
	Addr netip.Addr
	// Changed is told of each write (nil: no one): the node's ban list
	// reads the bans again, metrics count the action.
	Changed func(action string)
	Log     *slog.Logger // nil: slog.Default()
	now     func() time.Time
}

// subcommand is one admin command.
type subcommand struct {
	name    string
	args    string // usage after the name
	summary string
	run     func(ctx context.Context, e *Env, fs *flags) int
}

// subcommands is every admin command, in the order help lists them.
func subcommands() []subcommand {
	return []subcommand{
		banCommand(), unbanCommand(), bansCommand(),
		grantCommand(), revokeCommand(),
		renameCommand(),
		hideCommand(), unhideCommand(),
		playersCommand(), playerCommand(),
		auditCommand(),
	}
}

// Run runs the admin command args (its name first) and returns its exit
// status.
func Run(ctx context.Context, e Env, args []string) int {
	if e.Log == nil {
		e.Log = slog.Default()
	}
	if e.now == nil {
		e.now = time.Now
	}
	if len(args) == 0 { // a mistake: its line and the usage on stderr, as every command's
		fmt.Fprintln(e.Err, "admin: which command?")
		Usage(e.Err)
		return wire.ExitUsage
	}
	if args[0] == "help" || args[0] == "--help" || args[0] == "-h" {
		Usage(e.Out)
		return wire.ExitOK
	}
	for _, c := range subcommands() {
		if c.name == args[0] {
			fs := newFlags(&e, c)
			return c.run(ctx, &e, fs.withArgs(args[1:]))
		}
	}
	fmt.Fprintf(e.Err, "admin: unknown command %.40q; try `admin help`\n", args[0])
	return wire.ExitUsage
}

// Usage lists the admin commands.
func Usage(w io.Writer) {
	fmt.Fprintln(w, "admin commands (each write is kept in the audit log with its reason):")
	for _, c := range subcommands() {
		fmt.Fprintf(w, "  admin %s %s\n      %s\n", c.name, c.args, c.summary)
	}
	fmt.Fprintln(w, "PLAYER is #ID, a key's SHA256:… fingerprint or a name; GAME is a game's number.")
}

// flags is an admin command's flags, parsed between its arguments too
// (`ban eve --for 7d --reason spam`).
type flags struct {
	*flag.FlagSet
	e    *Env
	c    subcommand
	args []string
	pos  []string
}

func newFlags(e *Env, c subcommand) *flags {
	fs := &flags{FlagSet: flag.NewFlagSet("admin "+c.name, flag.ContinueOnError), e: e, c: c}
	// The flag package's own words are told as one line (mistake), and
	// the usage only when asked for.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

func (fs *flags) withArgs(args []string) *flags { fs.args = args; return fs }

// parse parses the flags wherever they stand; want is how many arguments
// the command takes. When ok is false the command returns code.
func (fs *flags) parse(want int) (code int, ok bool) {
	args := fs.args
	for {
		if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(fs.e.Out, "usage: admin %s %s\n  %s\n", fs.c.name, fs.c.args, fs.c.summary)
			fs.SetOutput(fs.e.Out)
			fs.PrintDefaults()
			return wire.ExitOK, false
		} else if err != nil {
			return fs.mistake("%s", flagtext.Error(err)), false
		}
		if fs.NArg() == 0 {
			break
		}
		fs.pos = append(fs.pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(fs.pos) != want {
		return fs.mistake("want %d argument(s): %s", want, fs.c.args), false
	}
	return wire.ExitOK, true
}

// mistake tells the admin what was wrong with the command line, in one
// line, and returns the status for it.
func (fs *flags) mistake(format string, a ...any) int {
	fmt.Fprintf(fs.e.Err, "admin %s: %s\n", fs.c.name, fmt.Sprintf(format, a...))
	return wire.ExitUsage
}

// reasonFlag adds --reason, which every write requires (reason checks it).
func (fs *flags) reasonFlag() *string {
	return fs.String("reason", "", "why, for the audit log (required; at most 500 bytes)")
}

// reason checks and cleans --reason into the action.
func (fs *flags) reason(r string) (store.Action, int, bool) {
	a := fs.e.Actor
	a.Reason = store.CleanText(r)
	switch {
	case strings.TrimSpace(a.Reason) == "":
		return a, fs.mistake("--reason is required: say why, for the audit log"), false
	case len(r) > store.MaxReason:
		return a, fs.mistake("--reason is %d bytes; at most %d", len(r), store.MaxReason), false
	}
	return a, wire.ExitOK, true
}

// fail tells the admin why a store call failed and returns the status:
// each refusal of the store has its own line and status.
func (e *Env) fail(cmd string, err error) int {
	for _, c := range []struct {
		err  error
		code int
	}{
		{store.ErrNotFound, wire.ExitNotFound},
		{store.ErrAmbiguous, wire.ExitUsage},
		{store.ErrInvalid, wire.ExitUsage},
		{store.ErrNameInvalid, wire.ExitUsage},
		{store.ErrNameTaken, wire.ExitAdminRefused},
		{store.ErrInPlay, wire.ExitInPlay},
		{store.ErrExists, wire.ExitAdminRefused},
		{store.ErrLastAdmin, wire.ExitAdminRefused},
		{store.ErrSelf, wire.ExitAdminRefused},
		{store.ErrByFile, wire.ExitAdminRefused},
	} {
		if errors.Is(err, c.err) {
			fmt.Fprintf(e.Err, "admin %s: %s\n", cmd, err)
			return c.code
		}
	}
	e.Log.Error("admin "+cmd, "err", err)
	fmt.Fprintf(e.Err, "admin %s: failed; see the server's log\n", cmd)
	return wire.ExitError
}

// changed tells Env.Changed of a write.
func (e *Env) changed(action string) {
	if e.Changed != nil {
		e.Changed(action)
	}
}

// player resolves an admin's PLAYER argument.
func (e *Env) player(ctx context.Context, cmd, ref string) (store.Player, int, bool) {
	p, err := e.Store.FindPlayer(ctx, ref)
	if err != nil {
		return p, e.fail(cmd, err), false
	}
	return p, wire.ExitOK, true
}

// Every text of the store a command prints (names, keys, bans, the audit
// log) passes through store.CleanText as it is printed, though names and
// reasons are checked as they are written: a row written by an older
// version, a merge, a peer or an operator's SQL may still hold an escape
// that would clear the admin's screen or set its title.

// who is how a listing names a player.
func who(p store.Player) string {
	return fmt.Sprintf("#%d %s (%s)", p.ID, store.CleanText(p.Name), store.CleanText(p.Fingerprint))
}

// when writes a time for an admin, in UTC.
func when(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}
