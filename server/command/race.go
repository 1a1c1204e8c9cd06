package command

import (
	"context"
	"errors"
	"fmt"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/race"
	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/tui/racing"
	"github.com/ssh2048/ssh2048/tui/reader"
	"github.com/ssh2048/ssh2048/wire"
)

// raceCommand is `race [--size N] [--room WORD]`: the race screens (it
// needs a PTY).
func raceCommand() Command {
	return Command{
		Name:    "race",
		Args:    "[--size N] [--room WORD]",
		Summary: "race others on the same tiles: the public lobby, or a private room (needs ssh -t)",
		Screen:  true,
		run:     (*Table).runRace,
	}
}

func (t *Table) runRace(sess *session.Session, fs *commandFlags, args []string) int {
	return t.runOpened(sess, func() Screen {
		size := fs.Int("size", 4, fmt.Sprintf("board size, %d to %d (a room's host may change it)", engine.MinSize, engine.MaxSize))
		room := fs.String("room", "", "open or join the private room of this word ("+roomWordRule+")")
		if code, ok := parseScreenFlags(fs, args, size); !ok {
			return Screen{Code: code}
		}
		seat := t.seat(sess)
		opened := Screen{Seat: seat, Text: t.raceNoticeText, Close: seat.Close}
		defer closeUnopened(&opened)
		join := func(ctx context.Context) (*race.Ticket, error) {
			return t.races.Join(ctx, seat, session.RemoteIP(sess.RemoteAddr()), *room, *size, false)
		}
		ticket, err := join(sess.Context())
		if code, failed := t.raceJoinFailed(sess, "race", *room, err); failed {
			return Screen{Code: code}
		}
		if ReaderOf(sess.Settings) {
			model := reader.NewRace(reader.RaceOptions{Ticket: ticket, Join: join, Room: *room, Context: sess.Context(), Now: t.games.Now})
			opened.Model = model
			opened.Close = func() {
				model.Leave()
				seat.Close()
			}
			return opened
		}
		model := racing.New(racing.Options{
			Ticket:   ticket,
			Join:     join,
			Room:     *room,
			JoinHint: "ssh -t … race --room " + *room,
			Player:   sess.Player.Name,
			Guest:    sess.Player.Guest,
			Context:  sess.Context(),
			Theme:    ThemeOf(sess.Settings),
			Motion:   MotionOf(sess.Settings), // while the screen's gate allows too (server.Config.Motion)
			Now:      t.games.Now,
			Woken:    true, // Config.RunScreen's loop waits for the race's views: no goroutine of the screen's own
		})
		opened.Model = model
		// However the session ends, the racer leaves (mid-race a forfeit,
		// unless their board is over), then gives up their seat.
		opened.Close = func() {
			model.Leave()
			seat.Close()
		}
		return opened
	})
}

// raceNoticeText is noticeText for a racer, who may be in a lobby with no
// game yet: what ends the session ends their race, and what they played
// of it is kept.
func (t *Table) raceNoticeText(n session.Notice) string {
	const kept = "any moves you made are saved"
	switch n {
	case session.Shutdown:
		return "The server is restarting, which ends your race; " + kept + ". Reconnect in a moment to race again."
	case session.Idle:
		return "No input for " + session.Spelled(t.cfg.IdleTimeout) + ", so the server closed this session and you left the race; " + kept + "."
	case session.Keepalive:
		return "Your connection stopped answering, so the server closed this session and you left the race; " + kept + "."
	case session.Flooded:
		return session.FloodedText + " You left the race; " + kept + "."
	case session.Moved:
		return "This key joined another account, which ends your race; " + kept + ". Reconnect to race as that account."
	}
	return t.noticeText(n)
}

// roomWordRule is what game accepts as a room word, said whole: game's own
// ErrRoomWord leaves out "lowercase" and the dashes' places, so "Blue-Fox"
// was refused for being what the message asked for.
const roomWordRule = "3 to 24 lowercase letters, digits or dashes, not beginning or ending with a dash"

// raceJoinFailed tells the player why they could not join a race, in
// one line, and returns the status; failed is false when err is nil.
func (t *Table) raceJoinFailed(sess *session.Session, cmd, room string, err error) (code int, failed bool) {
	switch {
	case err == nil:
		return wire.ExitOK, false
	case errors.Is(err, race.ErrRoomWord):
		fmt.Fprintf(sess.Stderr(), "%s: --room %.30q: a room word is %s\n", cmd, cleanArg(room), roomWordRule)
		return wire.ExitUsage, true
	case errors.Is(err, race.ErrRoomFull):
		fmt.Fprintf(sess.Stderr(), "%s: room %s is full (%d racers); pick another word, or race in the public lobby\n", cmd, room, race.MaxRacers)
		return wire.ExitRoom, true
	case errors.Is(err, race.ErrStarted):
		fmt.Fprintf(sess.Stderr(), "%s: the race in room %s has started; try again when it ends, or pick another word\n", cmd, room)
		return wire.ExitRoom, true
	case errors.Is(err, race.ErrTooManyRooms):
		fmt.Fprintf(sess.Stderr(), "%s: %v\n", cmd, race.ErrTooManyRooms)
		return wire.ExitRoom, true
	case errors.Is(err, race.ErrRoomsHere):
		fmt.Fprintf(sess.Stderr(), "%s: %v\n", cmd, race.ErrRoomsHere)
		return wire.ExitRoom, true
	case errors.Is(err, race.ErrInRace):
		fmt.Fprintf(sess.Stderr(), "%s: %v\n", cmd, race.ErrInRace)
		return wire.ExitRoom, true
	case errors.Is(err, game.ErrShuttingDown):
		fmt.Fprintln(sess.Stderr(), "ssh2048: "+t.noticeText(session.Shutdown))
		return wire.ExitRestart, true
	}
	t.log.Error("join race", "player", sess.Player.ID, "err", err)
	fmt.Fprintln(sess.Stderr(), "ssh2048: could not join the race; try again later.")
	return wire.ExitError, true
}

// cleanArg is a client's argument cut and stripped of control characters,
// to be quoted back to them.
func cleanArg(s string) string {
	r := []rune(s)
	if len(r) > 30 {
		r = r[:30]
	}
	out := make([]rune, 0, len(r))
	for _, c := range r {
		if c >= 0x20 && c != 0x7f && (c < 0x80 || c > 0x9f) {
			out = append(out, c)
		}
	}
	return string(out)
}
