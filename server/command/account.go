package command

import (
	"errors"
	"fmt"

	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/wire"
)

// What the account commands (whoami, link, keys, name) share: the lines
// for what a guest or a store without accounts cannot do.

// accountError tells the player why an account command could not do what
// it was asked, when the error is not one the command words itself; it
// returns the exit status.
func (t *Table) accountError(sess *session.Session, cmd string, err error) int {
	if errors.Is(err, game.ErrNoAccounts) {
		if sess.Player.Guest {
			fmt.Fprintf(sess.Stderr(), "%s: guests have no account; connect with an SSH key (ssh-keygen -t ed25519) to have one.\n", cmd)
		} else {
			fmt.Fprintf(sess.Stderr(), "%s: this server keeps no accounts.\n", cmd)
		}
		return wire.ExitNotFound
	}
	t.log.Error(cmd, "player", sess.Player.ID, "err", err)
	fmt.Fprintf(sess.Stderr(), "ssh2048: could not %s; try again later.\n", cmd)
	return wire.ExitError
}
