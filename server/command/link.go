package command

import (
	"context"
	"errors"
	"fmt"

	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/wire"
)

// linkCommand is `link` (a code for another key) and `link CODE`
// (this key joins the code's account).
func linkCommand() Command {
	return Command{
		Name:    "link",
		Args:    "[CODE] [--merge]",
		Summary: "without CODE: a one-time code for adding another key to your account; with it, from the other key: add this key (--merge: and its games)",
		run:     (*Table).runLink,
	}
}

func (t *Table) runLink(sess *session.Session, fs *commandFlags, args []string) int {
	merge := fs.Bool("merge", false, "move this key's games to the code's account: every game is kept, bests and ranks are the better of both")
	words, status, ok := argAmidFlags(fs, args)
	switch {
	case !ok:
		return status
	case len(words) > 1:
		return fs.mistake("unexpected argument %.40q", words[1])
	case len(words) == 0 && *merge:
		return fs.mistake("--merge goes with a CODE")
	case len(words) == 0:
		return t.newLinkCode(sess)
	case words[0] == "":
		return fs.mistake("the CODE is empty; `link` on a key of your account gives one")
	}
	code := words[0]
	sess.Links()
	ctx, cancel := context.WithTimeout(sess.Context(), readTimeout)
	defer cancel()
	res, err := t.games.Link(ctx, sess.Player, code, sess.Key(), *merge)
	again := "run `link` from a key on your account for a new one."
	switch {
	case err == nil:
		fmt.Fprintf(sess, "This key is now on %s's account (%s), with %d keys.", res.Account.Name, res.Account.PublicID(), res.Account.Keys)
		if res.Games > 0 {
			if res.Games == 1 {
				fmt.Fprint(sess, " Its game is that account's now.")
			} else {
				fmt.Fprintf(sess, " Its %d games are that account's now.", res.Games)
			}
		}
		fmt.Fprintln(sess)
		return wire.ExitOK
	case errors.Is(err, store.ErrCodeWrong):
		fmt.Fprintln(sess.Stderr(), "link: no such code; check it, or "+again)
	case errors.Is(err, store.ErrCodeExpired):
		fmt.Fprintf(sess.Stderr(), "link: that code has expired (a code lasts %s); %s\n", session.Spelled(store.LinkCodeTTL), again)
	case errors.Is(err, store.ErrCodeUsed):
		fmt.Fprintln(sess.Stderr(), "link: that code has been used already; "+again)
	case errors.Is(err, store.ErrAlreadyLinked):
		fmt.Fprintln(sess.Stderr(), "link: this key is on that account already.")
	case errors.Is(err, store.ErrBanned):
		// Refused at the door first (server.refuseBanned); this is a ban
		// made after this session began, or one on the code's account.
		fmt.Fprintln(sess.Stderr(), "link: a ban holds on this key or on that account; nothing was linked.")
		return wire.ExitBanned
	case errors.Is(err, store.ErrMergeNeeded):
		games := fmt.Sprintf("%d games of its own; to move them", res.Games)
		if res.Games == 1 {
			games = "1 game of its own; to move it"
		}
		fmt.Fprintf(sess.Stderr(), "link: this key has %s to that account (every game is kept), run: link %s --merge\n", games, store.SanitizeName(code))
		return wire.ExitMerge
	default:
		return t.accountError(sess, "link", err)
	}
	return wire.ExitRefused
}

func (t *Table) newLinkCode(sess *session.Session) int {
	ctx, cancel := context.WithTimeout(sess.Context(), readTimeout)
	defer cancel()
	code, _, err := t.games.NewLinkCode(ctx, sess.Player)
	if err != nil {
		return t.accountError(sess, "link", err)
	}
	fmt.Fprintf(sess, "Your link code: %s (works once, for %s).\nFrom the key to add, run: link %s\n", code, session.Spelled(store.LinkCodeTTL), code)
	return wire.ExitOK
}

// argAmidFlags parses the flags around at most one argument (Go's flag package
// stops at the first argument; a player writes `link CODE --merge`): the
// argument first, then what is left after the flags that follow it; none
// when no argument was given (an empty one, `link ""`, is one).
func argAmidFlags(fs *commandFlags, args []string) (words []string, code int, ok bool) {
	if code, ok := fs.parse(args); !ok {
		return nil, code, false
	}
	if fs.NArg() == 0 {
		return nil, wire.ExitOK, true
	}
	arg := fs.Arg(0)
	if code, ok := fs.parse(fs.Args()[1:]); !ok {
		return nil, code, false
	}
	return append([]string{arg}, fs.Args()...), wire.ExitOK, true
}
