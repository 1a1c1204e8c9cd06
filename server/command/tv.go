package command

import (
	"fmt"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/tui/reader"
	"github.com/ssh2048/ssh2048/tui/viewer"
)

// tvCommand is `tv [--size N]`.
func tvCommand() Command {
	return Command{
		Name:    "tv",
		Args:    "[--size N]",
		Summary: "watch the best game being played right now (needs ssh -t)",
		Screen:  true,
		run:     (*Table).runTV,
	}
}

func (t *Table) runTV(sess *session.Session, fs *commandFlags, args []string) int {
	return t.runOpened(sess, func() Screen {
		size := fs.Int("size", 4, fmt.Sprintf("board size, %d to %d", engine.MinSize, engine.MaxSize))
		if code, ok := parseScreenFlags(fs, args, size); !ok {
			return Screen{Code: code}
		}
		if ReaderOf(sess.Settings) {
			return t.viewer(reader.NewTV(t.readerViewOptions(sess), *size))
		}
		return t.viewer(viewer.NewTV(t.viewOptions(sess), *size))
	})
}
