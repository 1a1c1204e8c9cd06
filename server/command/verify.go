package command

import (
	"context"
	"fmt"
	"strings"

	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/wire"
)

// verifyCommand is `verify GAME`: it replays a stored game and checks
// what the store says of it.
func verifyCommand() Command {
	return Command{
		Name:    "verify",
		Args:    "GAME",
		Summary: "replay a stored game and check its score, largest tile, win and board",
		run:     (*Table).runVerify,
	}
}

func (t *Table) runVerify(sess *session.Session, fs *commandFlags, args []string) int {
	id, code, ok := gameArg(sess, fs, args)
	if !ok {
		return code
	}
	ctx, cancel := context.WithTimeout(sess.Context(), readTimeout)
	defer cancel()
	v, err := t.games.Verify(ctx, id)
	if code, ok := t.gameError(sess, "verify", id, err); !ok {
		return code
	}
	if !v.Confirmed() {
		fmt.Fprintf(sess, "refuted: game %d: %s\n", id, strings.Join(v.Mismatches, "; "))
		return wire.ExitRefuted
	}
	g := v.Replayed
	moves := "moves"
	if g.Moves() == 1 {
		moves = "move"
	}
	fmt.Fprintf(sess, "confirmed: game %d, %d×%d, score %d, max tile %d, %d %s%s\n",
		id, g.Size(), g.Size(), g.Score(), g.MaxTile(), g.Moves(), moves, map[bool]string{true: ", won", false: ""}[g.Won()])
	return wire.ExitOK
}
