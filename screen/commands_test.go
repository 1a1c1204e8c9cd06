package screen

import (
	"image/color"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
)

// failUnsupported is an Options.Unsupported that fails the test: a model
// the screen runs in a test must get everything it asks for.
func failUnsupported(t testing.TB) func(string) {
	return func(what string) {
		t.Errorf("the model asked for %s, which the screen does not do", what)
	}
}

// unsupportedLog is an Options.Unsupported that records what it is told.
type unsupportedLog struct {
	mu   sync.Mutex
	told []string
}

func (u *unsupportedLog) report(what string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.told = append(u.told, what)
}

func (u *unsupportedLog) list() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return slices.Clone(u.told)
}

// TestScreenUnsupported: what the screen does not do is reported, once
// however often it is asked for, and the model goes on.
func TestScreenUnsupported(t *testing.T) {
	tests := []struct {
		cmd  tea.Cmd
		view func(*tea.View)
		want string
	}{
		{cmd: tea.Println("hello"), want: "tea.Println"},
		{cmd: tea.Printf("%d", 1), want: "tea.Println"},
		{cmd: tea.Raw(ansi.RequestPrimaryDeviceAttributes), want: "tea.Raw"},
		{cmd: tea.ExecProcess(exec.Command("true"), nil), want: "tea.Exec"},
		{cmd: tea.Suspend, want: "tea.Suspend"},
		{cmd: tea.SetClipboard("x"), want: "tea.SetClipboard"},
		{cmd: tea.ReadClipboard, want: "tea.ReadClipboard"},
		{cmd: tea.SetPrimaryClipboard("x"), want: "tea.SetPrimaryClipboard"},
		{cmd: tea.ReadPrimaryClipboard, want: "tea.ReadPrimaryClipboard"},
		{cmd: tea.RequestCursorColor, want: "tea.RequestCursorColor"},
		{cmd: tea.RequestTerminalVersion, want: "tea.RequestTerminalVersion"},
		{cmd: tea.RequestCapability("RGB"), want: "tea.RequestCapability"},
		{cmd: tea.Sequence(tea.Println("a"), tea.Println("b")), want: "tea.Println"},
		{view: func(v *tea.View) { v.Cursor = tea.NewCursor(1, 1) }, want: "tea.View.Cursor"},
		{view: func(v *tea.View) { v.BackgroundColor = color.Black }, want: "tea.View.BackgroundColor"},
		{view: func(v *tea.View) { v.ForegroundColor = color.White }, want: "tea.View.ForegroundColor"},
		{view: func(v *tea.View) { v.ProgressBar = tea.NewProgressBar(tea.ProgressBarDefault, 50) }, want: "tea.View.ProgressBar"},
		{view: func(v *tea.View) { v.ReportFocus = true }, want: "tea.View.ReportFocus"},
		{view: func(v *tea.View) { v.MouseMode = tea.MouseModeCellMotion }, want: "tea.View.MouseMode"},
		{view: func(v *tea.View) { v.KeyboardEnhancements.ReportEventTypes = true }, want: "tea.View.KeyboardEnhancements"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			u := &unsupportedLog{}
			m := &testModel{init: tt.cmd, onView: tt.view}
			if tt.cmd != nil {
				// Asked for again after the first time.
				m.onMsg = func(msg tea.Msg) tea.Cmd {
					if msg == namedMsg("again") {
						return tt.cmd
					}
					return nil
				}
			}
			r := start(t, m, nil, Options{Unsupported: u.report})
			waitFor(t, "the report", func() bool { return len(u.list()) > 0 })
			r.s.Send(namedMsg("again"))
			r.typeKeys(t, "ab")
			waitFor(t, "the model to go on", func() bool { return r.out.shows(t, colorprofile.TrueColor, 80, 24, "count 0\nkeys a,b") })
			if got := u.list(); !slices.Equal(got, []string{tt.want}) {
				t.Errorf("reported %q, want %q once", got, tt.want)
			}
		})
	}
}

// TestScreenSupported: the commands the screen does are not reported,
// and a screen without Options.Unsupported reports nothing, and drops
// what it does not do.
func TestScreenSupported(t *testing.T) {
	for _, cmd := range []tea.Cmd{
		tea.Batch(tea.RequestBackgroundColor, tea.RequestForegroundColor),
		tea.Sequence(tea.RequestCursorPosition, tea.RequestWindowSize, tea.ClearScreen),
		tea.Tick(time.Millisecond, func(time.Time) tea.Msg { return namedMsg("tick") }),
	} {
		m := &testModel{init: cmd}
		r := start(t, m, nil, Options{})
		r.typeKeys(t, "a")
		waitFor(t, "the key's frame", func() bool { return r.out.shows(t, colorprofile.TrueColor, 80, 24, "count 0\nkeys a") })
	}
	out := &outBuffer{}
	s := New(&testModel{init: tea.Println("dropped")}, out, Options{Width: 20, Height: 3})
	kb := newKeyboard()
	kb.close()
	s.Send(tea.QuitMsg{})
	if err := s.Run(t.Context(), kb); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "dropped") {
		t.Errorf("tea.Println printed: %q", out.String())
	}
}

// TestScreenSequence: a sequence's commands run one at a time, in order,
// each after the message of the one before has been handled; a batch in
// a sequence is waited for; a sequence can end the screen.
func TestScreenSequence(t *testing.T) {
	var mu sync.Mutex
	var ran []string
	cmd := func(name string, wait time.Duration) tea.Cmd {
		return func() tea.Msg {
			time.Sleep(wait) // a later command that came first would show
			mu.Lock()
			ran = append(ran, name)
			mu.Unlock()
			return namedMsg(name)
		}
	}
	m := &testModel{init: tea.Sequence(
		cmd("1", 20*time.Millisecond),
		nil,
		tea.Batch(cmd("2a", 30*time.Millisecond), cmd("2b", 0)),
		tea.Sequence(cmd("3", 10*time.Millisecond), cmd("4", 0)),
		cmd("5", 0),
		tea.Quit,
		cmd("never", 0),
	)}
	r := start(t, m, nil, Options{})
	if err := r.wait(t); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, msg := range m.messages() {
		if n, ok := msg.(namedMsg); ok {
			got = append(got, string(n))
		}
	}
	if len(got) != 6 || got[0] != "1" || !slices.Equal(got[3:], []string{"3", "4", "5"}) ||
		!slices.Contains(got[1:3], "2a") || !slices.Contains(got[1:3], "2b") {
		t.Errorf("the model got %q, want 1, 2a and 2b in any order, 3, 4, 5", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if slices.Contains(ran, "never") {
		t.Errorf("a command after tea.Quit ran: %q", ran)
	}
}

// TestScreenRequests: the screen asks the terminal what the model asks,
// the background colour only while no question is waiting for its
// answer (Start asks it first thing); answers reach the model.
func TestScreenRequests(t *testing.T) {
	m := &testModel{onMsg: func(msg tea.Msg) tea.Cmd {
		switch msg {
		case namedMsg("background"):
			return tea.RequestBackgroundColor
		case namedMsg("foreground"):
			return tea.RequestForegroundColor
		case namedMsg("cursor"):
			return tea.RequestCursorPosition
		}
		return nil
	}}
	r := start(t, m, nil, Options{})
	asked := func(seq string) int { return strings.Count(r.out.String(), seq) }
	// handled waits for the model to have had n requests like cmd's.
	handled := func(cmd tea.Cmd, n int) {
		t.Helper()
		waitFor(t, "the requests", func() bool {
			got := 0
			for _, msg := range m.messages() {
				if typeOf(msg) == typeOf(cmd()) {
					got++
				}
			}
			return got >= n
		})
	}
	waitFor(t, "the first frame", func() bool { return r.out.shows(t, colorprofile.TrueColor, 80, 24, "count 0\nkeys ") })

	r.s.Send(namedMsg("background"))
	r.s.Send(namedMsg("background"))
	handled(tea.RequestBackgroundColor, 2)
	if n := asked(ansi.RequestBackgroundColor); n != 1 {
		t.Errorf("the background colour was asked %d times before an answer, want once", n)
	}
	r.typeKeys(t, "\x1b]11;rgb:ffff/ffff/ffff\x07")
	r.s.Send(namedMsg("background"))
	handled(tea.RequestBackgroundColor, 3)
	if n := asked(ansi.RequestBackgroundColor); n != 2 {
		t.Errorf("the background colour was asked %d times after an answer and a question, want twice", n)
	}

	r.s.Send(namedMsg("foreground"))
	r.s.Send(namedMsg("cursor"))
	handled(tea.RequestForegroundColor, 1)
	handled(tea.RequestCursorPosition, 1)
	if asked(ansi.RequestForegroundColor) != 1 || asked(ansi.RequestCursorPositionReport) != 1 {
		t.Errorf("the foreground colour and cursor position were not asked once each: %q", r.out.String())
	}
	r.typeKeys(t, "\x1b]10;rgb:0000/0000/0000\x07\x1b[5;7R")
	var fg, pos bool
	for _, msg := range m.messages() {
		switch msg := msg.(type) {
		case tea.ForegroundColorMsg:
			fg = msg.IsDark()
		case tea.CursorPositionMsg:
			pos = msg == tea.CursorPositionMsg{X: 6, Y: 4}
		}
	}
	if !fg || !pos {
		t.Errorf("the answers did not reach the model: %v", m.messages())
	}
}

// TestScreenWindowSizeAndClear: tea.RequestWindowSize is answered with
// the screen's size; tea.ClearScreen redraws the whole screen.
func TestScreenWindowSizeAndClear(t *testing.T) {
	m := &testModel{onMsg: func(msg tea.Msg) tea.Cmd {
		switch msg {
		case namedMsg("size"):
			return tea.RequestWindowSize
		case namedMsg("clear"):
			return tea.ClearScreen
		}
		return nil
	}}
	r := start(t, m, nil, Options{Width: 30, Height: 5})
	waitFor(t, "the first frame", func() bool { return r.out.shows(t, colorprofile.TrueColor, 30, 5, "count 0\nkeys ") })
	r.s.Send(tea.WindowSizeMsg{Width: 40, Height: 6})
	r.s.Send(namedMsg("size"))
	sizes := func() int {
		n := 0
		for _, msg := range m.messages() {
			if msg == (tea.WindowSizeMsg{Width: 40, Height: 6}) {
				n++
			}
		}
		return n
	}
	waitFor(t, "the size to be told again", func() bool { return sizes() == 2 })

	waitFor(t, "the frame at the new size", func() bool { return r.out.shows(t, colorprofile.TrueColor, 40, 6, "count 0\nkeys ") })
	time.Sleep(50 * time.Millisecond) // past the frame interval
	before := len(r.out.String())
	r.s.Send(namedMsg("clear"))
	waitFor(t, "the redraw", func() bool { return strings.Contains(r.out.String()[before:], ansi.EraseEntireScreen) })
	if !r.out.shows(t, colorprofile.TrueColor, 40, 6, "count 0\nkeys ") {
		t.Errorf("the screen after the redraw: %q", r.out.String()[before:])
	}
}

// TestScreenInterrupt: tea.Interrupt ends the screen as tea.Quit does.
func TestScreenInterrupt(t *testing.T) {
	r := start(t, &testModel{init: tea.Interrupt}, nil, Options{})
	if err := r.wait(t); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.out.String(), ansi.ResetModeAltScreenSaveCursor) {
		t.Errorf("the alternate screen is not left: %q", r.out.String())
	}
}

// TestScreenKeyRate: a screen with a key rate drops the keys of a read
// over it; other messages pass.
func TestScreenKeyRate(t *testing.T) {
	m := &testModel{}
	r := start(t, m, nil, Options{KeyRate: 3})
	r.typeKeys(t, "abcdef\x1b]11;rgb:ffff/ffff/ffff\x07")
	if got := m.typed(); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("typed %q at 3 keys a second, got %q", "abcdef", got)
	}
	var bg bool
	for _, msg := range m.messages() {
		_, ok := msg.(tea.BackgroundColorMsg)
		bg = bg || ok
	}
	if !bg {
		t.Error("the background colour answer was dropped with the keys")
	}
}
