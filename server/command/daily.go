package command

import (
	"context"
	"fmt"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/tui"
	"github.com/ssh2048/ssh2048/tui/reader"
)

// dailyCommand is `daily [--size N]`: today's challenge on the game
// screen (it needs a PTY).
func dailyCommand() Command {
	return Command{
		Name:    "daily",
		Args:    "[--size N]",
		Summary: "today's daily challenge: the same tiles for everyone, one attempt a day (needs ssh -t)",
		Screen:  true,
		run:     (*Table).runDaily,
	}
}

func (t *Table) runDaily(sess *session.Session, fs *commandFlags, args []string) int {
	return t.runOpened(sess, func() Screen {
		size := fs.Int("size", 4, fmt.Sprintf("board size, %d to %d", engine.MinSize, engine.MaxSize))
		if code, ok := parseScreenFlags(fs, args, size); !ok {
			return Screen{Code: code}
		}
		seat := t.seat(sess)
		opened := Screen{Seat: seat, Text: t.noticeText, Close: seat.Close}
		defer closeUnopened(&opened)
		day := t.games.Today()
		if ReaderOf(sess.Settings) {
			opened.Model = reader.New(reader.Options{
				Store:   ReaderStore(tui.DailyStore(t.games, seat, day)),
				Size:    *size,
				Guest:   sess.Player.Guest,
				Daily:   day,
				Context: sess.Context(),
			})
			return opened
		}
		ctx, cancel := context.WithTimeout(sess.Context(), readTimeout)
		streak, err := t.games.Streak(ctx, sess.Player)
		cancel()
		if err != nil {
			t.log.Warn("daily streak", "player", sess.Player.ID, "err", err)
		}
		opened.Model = tui.New(tui.Options{
			Store:   tui.DailyStore(t.games, seat, day),
			Player:  sess.Player.Name,
			Guest:   sess.Player.Guest, // a practice board: tui.DailyPracticeNotice
			Size:    *size,
			Context: sess.Context(),
			Daily:   &tui.Daily{Day: day, Streak: streak, Now: t.games.Now},
			Motion:  MotionOf(sess.Settings), // while the screen's gate allows too (server.Config.Motion)
			Theme:   ThemeOf(sess.Settings),
		})
		return opened
	})
}
