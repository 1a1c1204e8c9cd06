package command

import (
	"context"

	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/tui/reader"
	"github.com/ssh2048/ssh2048/tui/viewer"
	"github.com/ssh2048/ssh2048/wire"
)

// replayCommand is `replay GAME`.
func replayCommand() Command {
	return Command{
		Name:    "replay",
		Args:    "GAME",
		Summary: "replay a stored game move by move (needs ssh -t)",
		Screen:  true,
		run:     (*Table).runReplay,
	}
}

func (t *Table) runReplay(sess *session.Session, fs *commandFlags, args []string) int {
	return t.runOpened(sess, func() Screen {
		id, code, ok := gameArg(sess, fs, args)
		if !ok {
			return Screen{Code: code}
		}
		if !hasTerminal(sess, "replay") {
			return Screen{Code: wire.ExitUsage}
		}
		ctx, cancel := context.WithTimeout(sess.Context(), readTimeout)
		defer cancel()
		r, err := t.games.Replay(ctx, id)
		if code, ok := t.gameError(sess, "replay", id, err); !ok {
			return Screen{Code: code}
		}
		if ReaderOf(sess.Settings) {
			return t.viewer(reader.NewReplay(r))
		}
		return t.viewer(viewer.NewReplay(t.viewOptions(sess), r))
	})
}
