package server

import (
	"io"

	"context"
	"errors"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	"charm.land/wish/v2/bubbletea"
	"github.com/ssh2048/ssh2048/tui"
)

// TUIEnv is what the game screen gets for one session.
type TUIEnv struct {
	Player Player
	// Games opens the player's games with the one-writer rule; a game
	// taken over by a newer session ends this session.
	Games *Games
}

// TUIFunc builds the game screen for a session with a PTY. The program runs
// with the session as its terminal. When the session must end, the server
// sends it tui.TakenOverMsg or tui.ShutdownMsg and quits it NoticeGrace
// later if it has not quit by itself.
type TUIFunc func(sess ssh.Session, env TUIEnv) tea.Model

// NoticeGrace is how long the TUI may take to show a notice and quit.
const NoticeGrace = 1500 * time.Millisecond

func (s *Server) runTUI(sess *session) {
	games := &Games{srv: s, player: sess.player, takenOver: func() { sess.notify(noticeTakenOver) }}
	defer games.closeAll()
	model := s.cfg.TUI(sess, TUIEnv{Player: sess.player, Games: games})
	pty, winch, _ := sess.Pty()
	opts := bubbletea.MakeOptions(sess)
	opts = append(opts,
		// Without its own signal handler: the program runs inside the
		// server, and would otherwise quit on the server's SIGTERM before
		// the player is told that the game is saved.
		tea.WithoutSignalHandler(),
		tea.WithWindowSize(clampWindow(pty.Window)),
	)
	var input io.Reader = sess
	if s.lim.keyRate > 0 {
		input = newKeyLimiter(sess, s.lim.keyRate)
	}
	// The program gets no input of its own: feedInput decodes the session's
	// keys and sends them in (see there for why).
	opts = append(opts, tea.WithInput(nil))
	prog := tea.NewProgram(model, opts...)
	// Without input the program sends no terminal queries either; the
	// screen's one (is the background light or dark?) goes out here, before
	// the renderer writes anything, and feedInput delivers the answer.
	_, _ = io.WriteString(sess, ansi.RequestBackgroundColor)
	go feedInput(sess.Context(), input, pty.Term, prog)
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case n := <-sess.notices:
			if n == noticeTakenOver {
				prog.Send(tui.TakenOverMsg{Text: n.Text()})
			} else {
				prog.Send(tui.ShutdownMsg{Text: n.Text()})
			}
			time.AfterFunc(NoticeGrace, prog.Quit)
		case <-done:
		}
	}()
	// In place of wish's bubbletea middleware, whose window changes go to
	// the program one by one and unclamped.
	ctx, cancel := context.WithCancel(sess.Context())
	go forwardResizes(ctx, winch, prog)
	if _, err := prog.Run(); err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		s.log.Error("game screen", "err", err, "remote", sess.RemoteAddr().String())
	}
	prog.Kill()
	cancel()
	// The session's input ends when the handler returns and the channel
	// closes; feedInput is not waited for here, it ends then.
}

// feedInput decodes the session's input into key events (and terminal
// replies) and sends them to prog until the input ends. Bubble Tea's own
// input loop, with the pinned ultraviolet, sends its events on a channel
// nobody reads once the program has quit: a key in flight as a session
// ends left that goroutine, and with it the whole program, blocked for
// good (TerminalReader.sendEvents). prog.Send gives up once the program is
// gone, and this loop drains the decoder until the input ends.
func feedInput(ctx context.Context, input io.Reader, term string, prog *tea.Program) {
	events := make(chan uv.Event)
	decoded := make(chan struct{})
	go func() {
		defer close(decoded)
		_ = uv.NewTerminalReader(input, term).StreamEvents(ctx, events)
	}()
	for {
		select {
		case ev := <-events:
			prog.Send(ev)
		case <-decoded:
			return
		}
	}
}

// Terminal sizes the game screen is told at most: the screen keeps
// buffers of width × height cells, about 200 bytes a cell (measured: 16 MB
// for 400 × 200), so a client claiming 1000 × 1000 would cost 200 MB a
// session. The game needs far less; larger terminals get it in their top
// left corner, at about 2 MB a session at most.
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

// forwardResizes passes window changes to the program, clamped and at most
// one per resizeEvery, until ctx is done (the connection dropped: the
// program is told to quit), then drains winch until the session closes it
// at its end, so that the session's request loop never blocks on it.
func forwardResizes(ctx context.Context, winch <-chan ssh.Window, prog *tea.Program) {
	var (
		pending, sent ssh.Window
		havePending   bool
		throttle      = time.NewTimer(0)
		throttled     bool
	)
	defer throttle.Stop()
	<-throttle.C
	send := func(w ssh.Window) {
		width, height := clampWindow(w)
		sent = ssh.Window{Width: width, Height: height}
		prog.Send(tea.WindowSizeMsg{Width: width, Height: height})
		throttled = true
		throttle.Reset(resizeEvery)
	}
	for {
		select {
		case <-ctx.Done():
			prog.Quit()
			for range winch { //nolint:revive // drained, not used
			}
			return
		case w, ok := <-winch:
			if !ok {
				<-ctx.Done()
				prog.Quit()
				return
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
