package command

import (
	"context"
	"errors"

	"charm.land/wish/v2"
	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/race"
	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/wire"
)

// runRaceBot is `bot --race`: the bot protocol inside a race. The bot
// waits in the lobby (nothing is written) until the race starts; then the
// protocol runs as usual, every state line carrying the race's clock and
// the opponents' scores (wire.Race). When the race finishes, one last
// state line says so, with the places, and the session ends with status
// 0. Closing the input once the bot's board is over leaves the race with
// its score in its place; closing it with moves still possible forfeits
// the race.
func (t *Table) runRaceBot(sess *session.Session, size int, room string) int {
	seat := t.seat(sess)
	defer seat.Close()
	ticket, err := t.races.Join(sess.Context(), seat, session.RemoteIP(sess.RemoteAddr()), room, size, true)
	if code, failed := t.raceJoinFailed(sess, "bot", room, err); failed {
		return code
	}
	defer ticket.Leave()
	if sess.Player.Guest {
		wish.Errorln(sess, GuestHint)
	}

	// The race's views, from one goroutine, until this command ends.
	ctx, cancel := context.WithCancel(sess.Context())
	defer cancel()
	views := make(chan race.View)
	go func() {
		for {
			v, err := ticket.Next(ctx)
			if err != nil {
				return
			}
			select {
			case views <- v:
			case <-ctx.Done():
				return
			}
		}
	}()

	// Input is read from the start, so that a bot that goes away while it
	// waits leaves the lobby, lines sent before or not; lines sent before
	// the start are held (up to maxHeldLines: the reader then waits
	// behind them) and played once the race runs.
	lines := make(chan lineResult)
	stop := make(chan struct{})
	defer close(stop)
	go readLines(sess, lines, stop)
	var (
		view    race.View
		pending []lineResult
		input   = lines
	)
	for view.Phase < race.Running {
		select {
		case view = <-views:
		case in, ok := <-input:
			if !ok {
				return wire.ExitOK // gone before the start
			}
			if pending = append(pending, in); len(pending) == maxHeldLines {
				input = nil
			}
		case n := <-sess.Notices:
			return t.sayGoodbye(sess, n)
		case <-sess.Context().Done():
			return wire.ExitOK
		}
	}
	play := ticket.Play()
	if play == nil {
		// The seat was told why, if a merge deleted its account, before
		// the race that could not open its game ran.
		select {
		case n := <-sess.Notices:
			return t.sayGoodbye(sess, n)
		default:
		}
		wish.Errorln(sess, "ssh2048: could not open your race game; try again later.")
		return wire.ExitError
	}

	out := &stateWriter{w: sess}
	me := ticket.Me(view)
	write := func(res engine.Result) error {
		st := play.State(res)
		st.Race = t.raceState(view, me)
		return out.state(st)
	}
	if write(engine.Result{}) != nil {
		return wire.ExitOK
	}
	if view.Phase == race.Finished {
		return wire.ExitOK
	}

	// handle plays one line of input; done when the session must end.
	moves := t.newMoveLimiter()
	handle := func(in lineResult) (code int, done bool) {
		var rp *readerPanic
		if errors.As(in.err, &rp) {
			return t.cfg.Panicked(sess, rp.value, rp.stack), true
		}
		dir, perr := parseCommand(in)
		if perr == nil {
			perr = moves.take()
		}
		if perr != nil {
			st := play.State(engine.Result{})
			st.Race = t.raceState(view, me)
			return wire.ExitOK, out.error(perr.Error(), st) != nil
		}
		res, err := play.Move(sess.Context(), dir)
		switch {
		case errors.Is(err, game.ErrTakenOver):
			return t.sayGoodbye(sess, session.TakenOver), true
		case errors.Is(err, game.ErrMovedAccount):
			return t.sayGoodbye(sess, session.Moved), true
		case errors.Is(err, game.ErrTimeUp), errors.Is(err, game.ErrOver):
			res = engine.Result{} // nothing moved; the last line is on its way
		case err != nil:
			wish.Errorln(sess, "ssh2048: could not save your move; the game is kept as it was before it.")
			return wire.ExitError, true
		}
		return wire.ExitOK, write(res) != nil
	}
	for _, in := range pending {
		if code, done := handle(in); done {
			return code
		}
	}
	for {
		select {
		case n := <-sess.Notices:
			return t.sayGoodbye(sess, n)
		case view = <-views:
			me = ticket.Me(view)
			if view.Phase == race.Finished {
				_ = write(engine.Result{})
				return wire.ExitOK
			}
		case <-moves.held():
			moves.resume()
		case in, ok := <-moves.input(lines):
			if !ok {
				return wire.ExitOK // input closed: a forfeit if the race is on and the board not over
			}
			if code, done := handle(in); done {
				return code
			}
		}
	}
}

// maxHeldLines is how many lines a racing bot may send before its race
// starts that are held for the start; past them its input waits. A bot
// that closes its input before the start leaves the lobby, so the lines
// are read as they come rather than one held and the rest left unread.
const maxHeldLines = 16

// raceState is what a racing bot's state line says of the race: v as it
// stands, seen by racer me.
func (t *Table) raceState(v race.View, me int) *wire.Race {
	r := &wire.Race{ID: v.ID, Room: v.Room, Phase: wire.RaceRunning, Opponents: []wire.Opponent{}}
	if v.Phase == race.Finished {
		r.Phase = wire.RaceFinished
	} else if left := v.Ends.Sub(t.games.Now()); left > 0 {
		r.LeftMS = left.Milliseconds()
	}
	for i, x := range v.Racers {
		if i == me {
			r.Place = x.Place
			continue
		}
		r.Opponents = append(r.Opponents, wire.Opponent{Name: x.Name, Player: x.Key, Bot: x.Bot,
			Score: x.Score, MaxTile: x.MaxTile, Over: x.Over, Left: x.Forfeit, Place: x.Place})
	}
	return r
}
