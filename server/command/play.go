package command

import (
	"fmt"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/wire"
)

// playCommand is `play [--size N]`: the game screen, at the size asked
// for.
func playCommand() Command {
	return Command{
		Name:    "play",
		Args:    "[--size N]",
		Summary: "the game screen, as ssh -t with no command opens it; --size at that board size (needs ssh -t)",
		Screen:  true,
		run:     (*Table).runPlay,
	}
}

func (t *Table) runPlay(sess *session.Session, fs *commandFlags, args []string) int {
	return t.runOpened(sess, func() Screen {
		size := fs.Int("size", 0, fmt.Sprintf("board size, %d to %d (default: the size played last that no other window of yours shows)", engine.MinSize, engine.MaxSize))
		if code, ok := parseFlags(fs, args); !ok {
			return Screen{Code: code}
		}
		if (*size != 0 && !sizeOK(sess, "play", *size)) || !hasTerminal(sess, "play") {
			return Screen{Code: wire.ExitUsage}
		}
		return t.OpenGame(sess, *size)
	})
}

// OpenGame opens the game screen at board size (0: the screen's own
// choice), as a command's setup: play's, and the server's for a session
// with a PTY and no command.
func (t *Table) OpenGame(sess *session.Session, size int) Screen {
	seat := t.seat(sess)
	opened := Screen{Seat: seat, Text: t.noticeText, Close: seat.Close}
	defer closeUnopened(&opened)
	// The header counts the player's spectators: it is drawn again
	// when one comes or goes.
	seat.OnWatchers(sess.Poke)
	opened.Model = t.cfg.GameScreen(sess, seat, size)
	return opened
}
