package command

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/wire"
)

// nameCommand is `name` (your name) and `name NEW` (claim NEW).
func nameCommand() Command {
	return Command{
		Name:    "name",
		Args:    "[NEW]",
		Summary: "your name; with NEW, take NEW as your name, whatever user name you connect with (once a day)",
		run:     (*Table).runName,
	}
}

func (t *Table) runName(sess *session.Session, fs *commandFlags, args []string) int {
	if code, ok := fs.parse(args); !ok {
		return code
	}
	ctx, cancel := context.WithTimeout(sess.Context(), readTimeout)
	defer cancel()
	if fs.NArg() == 0 {
		a, err := t.games.Account(ctx, sess.Player)
		if err != nil {
			return t.accountError(sess, "name", err)
		}
		fmt.Fprintln(sess, a.Name)
		return wire.ExitOK
	}
	raw := strings.Join(fs.Args(), " ")
	a, err := t.games.ClaimName(ctx, sess.Player, raw)
	switch {
	case err == nil:
		fmt.Fprintf(sess, "You are %s now, whatever user name you connect with.\n", a.Name)
		return wire.ExitOK
	case errors.Is(err, store.ErrNameInvalid):
		_, why, _ := strings.Cut(err.Error(), store.ErrNameInvalid.Error()+": ")
		fmt.Fprintf(sess.Stderr(), "name: not a name you can take: %s\n", why)
		return wire.ExitUsage
	case errors.Is(err, store.ErrNameTaken):
		fmt.Fprintf(sess.Stderr(), "name: %q is taken, or looks like a name that is; pick another.\n", store.SanitizeName(raw))
	case errors.Is(err, store.ErrRenameTooSoon):
		at := time.Now().UTC()
		if a, err := t.games.Account(ctx, sess.Player); err == nil {
			at = a.RenamedAt.Add(store.RenameEvery).UTC()
		}
		fmt.Fprintf(sess.Stderr(), "name: you can rename once a day; next after %s.\n", at.Format("2006-01-02 15:04 UTC"))
	default:
		return t.accountError(sess, "name", err)
	}
	return wire.ExitRefused
}
