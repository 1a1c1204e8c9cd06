package server_test

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"

	"github.com/ssh2048/ssh2048/server"
)

// printer is a stand-in TUI that asks for what package screen does not
// do (tea.Println, a mouse) and quits on any key.
type printer struct{}

func (printer) Init() tea.Cmd { return tea.Println("hello") }
func (m printer) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(tea.KeyPressMsg); ok {
		return m, tea.Quit
	}
	return m, nil
}
func (printer) View() tea.View {
	v := tea.NewView("printer")
	v.MouseMode = tea.MouseModeAllMotion
	return v
}

// TestUnsupportedLoggedOnce: what a game screen asks for and does not get
// is logged at Warn once for the server, not once a session.
func TestUnsupportedLoggedOnce(t *testing.T) {
	ts := startServer(t, func(c *server.Config) {
		c.TUI = func(ssh.Session, server.TUIEnv) tea.Model { return printer{} }
	})
	for i := range 3 {
		s, out, send := ptySession(t, ts.dial(t, "p", newKey(t)))
		waitFor(t, "the screen", func() bool { return strings.Contains(out.String(), "printer") })
		if code := quitScreen(t, s, send); code != 0 {
			t.Fatalf("session %d: exit %d", i, code)
		}
	}
	for _, what := range []string{"tea.Println", "tea.View.MouseMode"} {
		want := `level=WARN msg="game screen asked for what the screen does not do" what=` + what
		if n := strings.Count(ts.logs.String(), want+"\n"); n != 1 {
			t.Errorf("%q logged %d times for three sessions, want once:\n%s", want, n, ts.logs.String())
		}
	}
}
