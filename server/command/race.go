package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/tui"
	"github.com/ssh2048/ssh2048/wire"
)

// The contests' screen commands: `daily` (today's challenge on the game
// screen) and `race` (the race screens). Both need a PTY.

func (s *Server) runDaily(sess *session, args []string) int {
	return s.runOpened(sess, func() openedScreen {
		fs := newFlagSet(sess, "daily", "[--size N]")
		size := fs.Int("size", 4, fmt.Sprintf("board size, %d to %d", engine.MinSize, engine.MaxSize))
		if code, ok := parseScreenFlags(fs, args, size); !ok {
			return openedScreen{code: code}
		}
		seat := s.seat(sess)
		opened := openedScreen{seat: seat, text: s.noticeText, close: seat.Close}
		defer closeUnopened(&opened)
		ctx, cancel := context.WithTimeout(sess.Context(), readTimeout)
		streak, err := s.games.Streak(ctx, sess.player)
		cancel()
		if err != nil {
			s.log.Warn("daily streak", "player", sess.player.ID, "err", err)
		}
		day := s.games.Today()
		opened.model = tui.New(tui.Options{
			Store:   tui.DailyStore(s.games, seat, day),
			Player:  sess.player.Name,
			Guest:   sess.player.Guest, // a practice board: tui.DailyPracticeNotice
			Size:    *size,
			Context: sess.Context(),
			Daily:   &tui.Daily{Day: day, Streak: streak, Now: s.games.Now},
		})
		return opened
	})
}

func (s *Server) runRace(sess *session, args []string) int {
	return s.runOpened(sess, func() openedScreen {
		fs := newFlagSet(sess, "race", "[--size N] [--room WORD]")
		size := fs.Int("size", 4, fmt.Sprintf("board size, %d to %d (a room's host may change it)", engine.MinSize, engine.MaxSize))
		room := fs.String("room", "", "open or join the private room of this word ("+roomWordRule+")")
		if code, ok := parseScreenFlags(fs, args, size); !ok {
			return openedScreen{code: code}
		}
		seat := s.seat(sess)
		opened := openedScreen{seat: seat, text: s.raceNoticeText, close: seat.Close}
		defer closeUnopened(&opened)
		join := func(ctx context.Context) (*game.RaceTicket, error) {
			return s.games.JoinRace(ctx, seat, *room, *size, false)
		}
		ticket, err := join(sess.Context())
		if code, failed := s.raceJoinFailed(sess, "race", *room, err); failed {
			return openedScreen{code: code}
		}
		model := tui.NewRace(tui.RaceOptions{
			Ticket:   ticket,
			Join:     join,
			Room:     *room,
			JoinHint: "ssh -t … race --room " + *room,
			Player:   sess.player.Name,
			Guest:    sess.player.Guest,
			Context:  sess.Context(),
			Now:      s.games.Now,
			Woken:    true, // runScreen's loop waits for the race's views: no goroutine of the screen's own
		})
		opened.model = model
		// However the session ends, the racer leaves (mid-race a forfeit,
		// unless their board is over), then gives up their seat.
		opened.close = func() {
			model.Leave()
			seat.Close()
		}
		return opened
	})
}

// raceNoticeText is noticeText for a racer, who may be in a lobby with no
// game yet: what ends the session ends their race, and what they played
// of it is kept.
func (s *Server) raceNoticeText(n notice) string {
	const kept = "any moves you made are saved"
	switch n {
	case noticeShutdown:
		return "The server is restarting, which ends your race; " + kept + ". Reconnect in a moment to race again."
	case noticeIdle:
		return "No input for " + spelled(s.lim.IdleTimeout) + ", so the server closed this session and you left the race; " + kept + "."
	case noticeKeepalive:
		return "Your connection stopped answering, so the server closed this session and you left the race; " + kept + "."
	}
	return s.noticeText(n)
}

// roomWordRule is what game accepts as a room word, said whole: game's own
// ErrRoomWord leaves out "lowercase" and the dashes' places, so "Blue-Fox"
// was refused for being what the message asked for.
const roomWordRule = "3 to 24 lowercase letters, digits or dashes, not beginning or ending with a dash"

// raceJoinFailed tells the player why they could not join a race, in
// one line, and returns the status; failed is false when err is nil.
func (s *Server) raceJoinFailed(sess *session, cmd, room string, err error) (code int, failed bool) {
	switch {
	case err == nil:
		return wire.ExitOK, false
	case errors.Is(err, game.ErrRoomWord):
		fmt.Fprintf(sess.Stderr(), "%s: --room %.30q: a room word is %s\n", cmd, cleanArg(room), roomWordRule)
		return wire.ExitUsage, true
	case errors.Is(err, game.ErrRoomFull):
		fmt.Fprintf(sess.Stderr(), "%s: room %s is full (%d racers); pick another word, or race in the public lobby\n", cmd, room, game.MaxRacers)
		return wire.ExitRoom, true
	case errors.Is(err, game.ErrRaceStarted):
		fmt.Fprintf(sess.Stderr(), "%s: the race in room %s has started; try again when it ends, or pick another word\n", cmd, room)
		return wire.ExitRoom, true
	case errors.Is(err, game.ErrTooManyRooms):
		fmt.Fprintf(sess.Stderr(), "%s: %v\n", cmd, game.ErrTooManyRooms)
		return wire.ExitRoom, true
	case errors.Is(err, game.ErrInRace):
		fmt.Fprintf(sess.Stderr(), "%s: %v\n", cmd, game.ErrInRace)
		return wire.ExitRoom, true
	case errors.Is(err, game.ErrShuttingDown):
		fmt.Fprintln(sess.Stderr(), "ssh2048: "+s.noticeText(noticeShutdown))
		return wire.ExitRestart, true
	}
	s.log.Error("join race", "player", sess.player.ID, "err", err)
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
