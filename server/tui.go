package server

import (
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
	// Without its own signal handler: the program runs inside the server,
	// and would otherwise quit on the server's SIGTERM before the player
	// is told that the game is saved.
	opts := append(bubbletea.MakeOptions(sess), tea.WithoutSignalHandler())
	prog := tea.NewProgram(model, opts...)
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
	// The wish middleware runs the program, forwards window changes and
	// kills the program if the connection drops.
	run := bubbletea.MiddlewareWithProgramHandler(func(ssh.Session) *tea.Program { return prog })
	run(func(ssh.Session) {})(sess)
}
