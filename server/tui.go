package server

import (
	"context"
	"io"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	"github.com/charmbracelet/colorprofile"

	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/screen"
	"github.com/ssh2048/ssh2048/tui"
)

// TUIEnv is what the game screen gets for one session.
type TUIEnv struct {
	// Seat opens the player's games with the one-writer rule; a game
	// taken over by a newer session ends this session.
	Seat *game.Seat
}

// TUIFunc builds the game screen for a session with a PTY. The model runs
// with the session as its terminal (see package screen). When the session
// must end, the server sends it tui.TakenOverMsg or tui.ShutdownMsg and
// stops it NoticeGrace later if it has not quit by itself.
type TUIFunc func(sess ssh.Session, env TUIEnv) tea.Model

// NoticeGrace is how long the TUI may take to show a notice and quit.
const NoticeGrace = 1500 * time.Millisecond

func (s *Server) runTUI(sess *session) {
	seat := s.games.Seat(sess.player, func() { sess.notify(noticeTakenOver) })
	defer seat.Close()
	model := s.cfg.TUI(sess, TUIEnv{Seat: seat})
	pty, winch, _ := sess.Pty()
	width, height := clampWindow(pty.Window)
	// The screen runs on package screen rather than tea.Program: a program
	// holds about 0.7 MB for its renderer and key table, which at
	// hundreds of sessions is most of the server's memory, and draws on a
	// ticker, which makes every key wait for the next tick (see package
	// term).
	scr := screen.New(model, sess, screen.Options{
		Width:   width,
		Height:  height,
		Profile: colorprofile.Env(append(sess.Environ(), "TERM="+pty.Term)),
		Term:    pty.Term,
	})
	var input io.Reader = sess
	if s.lim.KeyRate > 0 {
		input = newKeyLimiter(sess, s.lim.KeyRate)
	}
	scr.Start(input)
	defer scr.Stop()
	watchScreen(sess.Context(), scr, winch, sess.notices)
	if err := scr.Err(); err != nil && sess.Context().Err() == nil {
		s.log.Debug("game screen", "err", err, "remote", sess.RemoteAddr().String())
	}
	// The session's input ends when the handler returns and the channel
	// closes; the screen's reader is not waited for here, it ends then.
}

// Terminal sizes the game screen is told at most. The game needs far
// less than this; larger terminals get it in their top left corner. The
// bound keeps what a client's claimed size costs small: the lines of a
// frame and the cells of a changed line (1000 × 1000 would be a
// megabyte-sized frame on every resize).
const (
	maxScreenWidth  = 160
	maxScreenHeight = 60
)

// resizeEvery is the shortest time between two window sizes sent to the
// screen: every size means a redraw of the whole screen, and a client
// sending hundreds of window changes a second would otherwise keep a CPU
// busy redrawing. The last size always arrives.
const resizeEvery = 50 * time.Millisecond

func clampWindow(w ssh.Window) (int, int) {
	return min(max(w.Width, 1), maxScreenWidth), min(max(w.Height, 1), maxScreenHeight)
}

// watchScreen runs on the session's own goroutine until the screen ends.
// It passes window changes on, clamped and at most one per resizeEvery;
// on a notice it has the screen tell the player why the session ends, and
// stops it NoticeGrace later if it has not quit by itself; it stops the
// screen when the connection drops. One loop rather than a goroutine for
// each: every goroutine is 8 KB of stack or more, and a server holds
// thousands of sessions.
func watchScreen(ctx context.Context, scr *screen.Screen, winch <-chan ssh.Window, notices <-chan notice) {
	var (
		pending, sent ssh.Window
		havePending   bool
		throttle      = time.NewTimer(time.Hour)
		throttled     bool
		grace         <-chan time.Time
	)
	throttle.Stop()
	defer throttle.Stop()
	// The session closes winch when it ends, after this handler returns;
	// until then a window change must not block its request loop.
	defer func() {
		if winch != nil {
			go func() {
				for range winch { //nolint:revive // drained, not used
				}
			}()
		}
	}()
	send := func(w ssh.Window) {
		sent = w
		scr.Send(tea.WindowSizeMsg{Width: w.Width, Height: w.Height})
		throttled = true
		throttle.Reset(resizeEvery)
	}
	for {
		select {
		case <-scr.Done():
			return
		case <-ctx.Done():
			return
		case n := <-notices:
			notices = nil
			grace = time.After(NoticeGrace)
			var msg tea.Msg = tui.ShutdownMsg{Text: n.Text()}
			if n == noticeTakenOver {
				msg = tui.TakenOverMsg{Text: n.Text()}
			}
			// Not on this goroutine: a client that reads nothing blocks
			// the screen's writes, and with them Send, and the grace must
			// still run out.
			go scr.Send(msg)
		case <-grace:
			return
		case w, ok := <-winch:
			if !ok {
				winch = nil
				continue
			}
			width, height := clampWindow(w)
			if w = (ssh.Window{Width: width, Height: height}); w == sent && !havePending {
				continue
			}
			if throttled {
				pending, havePending = w, true
				continue
			}
			send(w)
		case <-throttle.C:
			throttled = false
			if havePending {
				havePending = false
				send(pending)
			}
		}
	}
}

// gameScreen is the default TUIFunc: package tui's game screen over the
// session's seat, with hints and autoplay from h when h is not nil.
func gameScreen(svc *game.Service, h tui.Hinter) TUIFunc {
	return func(sess ssh.Session, env TUIEnv) tea.Model {
		return tui.New(tui.Options{
			Store:       tui.SeatStore(svc, env.Seat),
			Hinter:      h,
			Player:      env.Seat.Player().Name,
			Guest:       env.Seat.Player().Guest,
			GuestNotice: guestHint,
			Context:     sess.Context(),
		})
	}
}
