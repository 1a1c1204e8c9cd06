package command

import (
	"context"

	"github.com/ssh2048/ssh2048/record"
	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/wire"
)

// exportCommand is `export GAME`: the record of an ended game
// (docs/record-format.md).
func exportCommand() Command {
	return Command{
		Name:    "export",
		Args:    "GAME",
		Summary: "print the record of an ended game (docs/record-format.md)",
		run:     (*Table).runExport,
	}
}

func (t *Table) runExport(sess *session.Session, fs *commandFlags, args []string) int {
	id, code, ok := gameArg(sess, fs, args)
	if !ok {
		return code
	}
	ctx, cancel := context.WithTimeout(sess.Context(), readTimeout)
	defer cancel()
	rec, err := t.games.Record(ctx, id)
	if code, ok := t.gameError(sess, "export", id, err); !ok {
		return code
	}
	if err := record.Write(sess, rec); err != nil {
		return wire.ExitOK // the client went away
	}
	return wire.ExitOK
}
