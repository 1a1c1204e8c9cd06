package server

import (
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	"charm.land/wish/v2"
	"charm.land/wish/v2/bubbletea"
)

// TUIEnv is what the game screen gets for one session.
type TUIEnv struct {
	Player Player
	// Games opens the player's games with the one-writer rule; a game
	// taken over by a newer session ends this session (see NoticeMsg).
	Games *Games
}

// TUIFunc builds the game screen for a session with a PTY. The program runs
// with the session as its terminal; the server sends it a NoticeMsg before
// ending it.
type TUIFunc func(sess ssh.Session, env TUIEnv) tea.Model

// NoticeMsg is sent to the TUI when the session must end: the server is
// restarting or a newer session took the game over. The program is quit
// NoticeGrace later, so the model has time to show Text.
type NoticeMsg struct {
	Text      string
	TakenOver bool // false: the server is restarting
}

// NoticeGrace is how long the TUI may show a NoticeMsg before it is quit.
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
	told := make(chan notice, 1)
	go func() {
		select {
		case n := <-sess.notices:
			prog.Send(NoticeMsg{Text: n.Text(), TakenOver: n == noticeTakenOver})
			time.AfterFunc(NoticeGrace, prog.Quit)
			told <- n
		case <-done:
		}
	}()
	// The wish middleware runs the program, forwards window changes and
	// kills the program if the connection drops.
	run := bubbletea.MiddlewareWithProgramHandler(func(ssh.Session) *tea.Program { return prog })
	run(func(ssh.Session) {})(sess)
	close(done)
	select {
	case n := <-told:
		// The TUI's screen is gone with its alternate screen: say it again
		// where it stays.
		wish.Println(sess, "ssh2048: "+n.Text())
	default:
	}
}

// placeholder is the screen shown until the real TUI is plugged in.
type placeholder struct {
	player Player
	notice string
}

func placeholderTUI(_ ssh.Session, env TUIEnv) tea.Model { return placeholder{player: env.Player} }

func (m placeholder) Init() tea.Cmd { return nil }

func (m placeholder) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case NoticeMsg:
		m.notice = msg.Text
	case tea.KeyPressMsg:
		switch msg.String() {
		case "q", "ctrl+c", "esc":
			return m, tea.Quit
		}
	}
	return m, nil
}

func (m placeholder) View() tea.View {
	text := "ssh2048\n\nHello, " + m.player.Name + ". The game screen is on its way.\n" +
		"Meanwhile: `ssh -p PORT HOST bot` plays through JSON lines, `scores` shows the leaderboard.\n"
	if m.player.Guest {
		text += "\n" + guestHint + "\n"
	}
	if m.notice != "" {
		text += "\n" + m.notice + "\n"
	}
	text += "\nPress q to quit."
	v := tea.NewView(text)
	v.AltScreen = true
	return v
}
