package command

import (
	"fmt"

	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/tui/reader"
	"github.com/ssh2048/ssh2048/tui/viewer"
	"github.com/ssh2048/ssh2048/wire"
)

// historyCommand is `history`: the player's own games, to replay.
func historyCommand() Command {
	return Command{
		Name:    "history",
		Summary: "your recent and best games, to replay (needs ssh -t)",
		Screen:  true,
		run:     (*Table).runHistory,
	}
}

func (t *Table) runHistory(sess *session.Session, fs *commandFlags, args []string) int {
	return t.runOpened(sess, func() Screen {
		if code, ok := parseFlags(fs, args); !ok {
			return Screen{Code: code}
		}
		if !hasTerminal(sess, "history") {
			return Screen{Code: wire.ExitUsage}
		}
		if sess.Player.Guest {
			fmt.Fprintln(sess.Stderr(), "history: guests' games are not kept; connect with an SSH key to keep yours.")
			return Screen{Code: wire.ExitNotFound}
		}
		if ReaderOf(sess.Settings) {
			return t.viewer(reader.NewHistory(t.readerViewOptions(sess), sess.Player))
		}
		return t.viewer(viewer.NewHistory(t.viewOptions(sess), sess.Player))
	})
}
