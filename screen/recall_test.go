package screen

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/ssh2048/ssh2048/tui/racing"
)

// A racer's screen keeps no copy of its frames (render/recall.go).
var _ ViewRedrawer = (*racing.Model)(nil)

// appendModel shows frames[i], written into the screen's buffer.
type appendModel struct {
	frames []string
	i      int
	last   string
}

func (m *appendModel) Init() tea.Cmd                       { return nil }
func (m *appendModel) Update(tea.Msg) (tea.Model, tea.Cmd) { return m, nil }
func (m *appendModel) View() tea.View {
	v := tea.NewView(m.frames[m.i])
	v.AltScreen = true
	return v
}

func (m *appendModel) AppendView(dst []byte) (tea.View, []byte) {
	v := m.View()
	m.last = v.Content
	dst = append(dst, v.Content...)
	v.Content = ""
	return v, dst
}

// redrawModel is an appendModel that writes its last view again; from
// frame wrongFrom on (if set), not quite the same.
type redrawModel struct {
	appendModel
	wrongFrom int
	redrawn   int
}

func (m *redrawModel) LastRedrawable() bool { return true }
func (m *redrawModel) AppendLastView(dst []byte) []byte {
	m.redrawn++
	if m.wrongFrom > 0 && m.i >= m.wrongFrom {
		return append(dst, strings.Replace(m.last, "score", "SCORE", 1)...)
	}
	return append(dst, m.last...)
}

// recallFrames are frames that change a little each time, in colour.
func recallFrames(n int) []string {
	var frames []string
	for i := range n {
		frames = append(frames, fmt.Sprintf("\x1b[1mscore\x1b[m %d\n\x1b[48;5;%dm%s\x1b[m\n%s",
			i*4, 100+i%3, strings.Repeat(" ", 10+i%4), strings.Repeat(fmt.Sprint(i%10), 20)))
	}
	return frames
}

// drawAll draws frame i of the model, for each i of 12, on a new screen
// (show makes it the model's), calling drawn after each; it returns the
// bytes written for each.
func drawAll(t *testing.T, m tea.Model, show func(i int), drawn func(s *Screen, i int)) (*outBuffer, [][]byte) {
	t.Helper()
	out := &outBuffer{}
	s := New(m, out, Options{Width: 40, Height: 6, Profile: colorprofile.ANSI256})
	var each [][]byte
	for i := range 12 {
		show(i)
		before := len(out.String())
		s.mu.Lock()
		s.draw()
		if drawn != nil {
			drawn(s, i)
		}
		s.mu.Unlock()
		each = append(each, []byte(out.String()[before:]))
	}
	return out, each
}

// TestScreenRecallsFrame: a screen whose model can write its last view
// again keeps no text between frames, and writes the very bytes a screen
// that keeps it writes.
func TestScreenRecallsFrame(t *testing.T) {
	frames := recallFrames(12)
	keeps := &appendModel{frames: frames}
	_, want := drawAll(t, keeps, func(i int) { keeps.i = i }, nil)
	redraws := &redrawModel{appendModel: appendModel{frames: frames}}
	out, got := drawAll(t, redraws, func(i int) { redraws.i = i }, func(s *Screen, i int) {
		if s.r.HoldsFrame() {
			t.Errorf("after frame %d the renderer holds its text", i)
		}
	})
	for i := range got {
		if !bytes.Equal(got[i], want[i]) {
			t.Errorf("frame %d: wrote %q, a screen that keeps its frame wrote %q", i, got[i], want[i])
		}
	}
	if redraws.redrawn != len(frames)-1 {
		t.Errorf("the last view was asked for %d times in %d frames, want %d", redraws.redrawn, len(frames), len(frames)-1)
	}
	if !out.shows(t, colorprofile.ANSI256, 40, 6, frames[len(frames)-1]) {
		t.Errorf("the screen does not show the last frame:\n%s", frames[len(frames)-1])
	}
}

// TestScreenRecallWrongCopy: a model whose copy of its last view is not
// what it wrote gets a full redraw, and the screen is right.
func TestScreenRecallWrongCopy(t *testing.T) {
	frames := recallFrames(12)
	m := &redrawModel{appendModel: appendModel{frames: frames}, wrongFrom: 6}
	out, got := drawAll(t, m, func(i int) { m.i = i }, nil)
	for i, b := range got {
		full := bytes.Contains(b, []byte("\x1b[2J"))
		if want := i == 0 || i >= 6; full != want {
			t.Errorf("frame %d: a full redraw is %v, want %v: %q", i, full, want, b)
		}
	}
	if !out.shows(t, colorprofile.ANSI256, 40, 6, frames[len(frames)-1]) {
		t.Errorf("the screen does not show the last frame:\n%s", frames[len(frames)-1])
	}
}
