package command

import (
	"context"
	"fmt"

	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/wire"
)

// whoamiCommand is `whoami`: the account the session's key is on.
func whoamiCommand() Command {
	return Command{
		Name:    "whoami",
		Summary: "your name, account id, this key's fingerprint and how many keys your account has",
		run:     (*Table).runWhoami,
	}
}

func (t *Table) runWhoami(sess *session.Session, fs *commandFlags, args []string) int {
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	ctx, cancel := context.WithTimeout(sess.Context(), readTimeout)
	defer cancel()
	a, err := t.games.Account(ctx, sess.Player)
	if err != nil {
		return t.accountError(sess, "whoami", err)
	}
	fmt.Fprintf(sess, "name     %s\naccount  %s\nkey      %s\nkeys     %d\n", a.Name, a.PublicID(), sess.Key(), a.Keys)
	return wire.ExitOK
}
