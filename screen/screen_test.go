package screen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/ssh2048/ssh2048/screen/internal/vterm"
)

// waitFor polls cond until it holds, failing the test after a few
// seconds: for what happens on another goroutine, with no assertion on
// how long it takes.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// testModel records the messages it gets; its view shows a counter and
// the keys typed. Screen calls Update and View one at a time, but tests
// read the model while it runs, hence the mutex.
type testModel struct {
	init      tea.Cmd
	onMsg     func(tea.Msg) tea.Cmd // a command for a message, if set
	altScreen bool                  // for the last view
	title     string
	long      bool            // the view has a third line, 60 columns long
	sgr       string          // an SGR sequence the view starts with
	onView    func(*tea.View) // changes the view, if set

	mu    sync.Mutex
	msgs  []tea.Msg
	keys  []string
	count int
	views atomic.Int64
}

var longLine = strings.Repeat("0123456789", 6)

// countMsg adds one to the model's counter.
type countMsg struct{}

// namedMsg is a message a command returns.
type namedMsg string

func (m *testModel) Init() tea.Cmd { return m.init }

func (m *testModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m.mu.Lock()
	m.msgs = append(m.msgs, msg)
	switch msg := msg.(type) {
	case countMsg:
		m.count++
	case tea.KeyPressMsg:
		m.keys = append(m.keys, msg.String())
		if msg.String() == "q" {
			m.mu.Unlock()
			return m, tea.Quit
		}
	}
	m.mu.Unlock()
	if m.onMsg != nil {
		return m, m.onMsg(msg)
	}
	return m, nil
}

func (m *testModel) View() tea.View {
	m.views.Add(1)
	m.mu.Lock()
	defer m.mu.Unlock()
	content := m.sgr + fmt.Sprintf("count %d\nkeys %s", m.count, strings.Join(m.keys, ","))
	if m.long {
		content += "\n" + longLine
	}
	v := tea.NewView(content)
	v.AltScreen = m.altScreen
	v.WindowTitle = m.title
	if m.onView != nil {
		m.onView(&v)
	}
	return v
}

func (m *testModel) messages() []tea.Msg {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.msgs)
}

func (m *testModel) typed() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.keys)
}

func (m *testModel) counted() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.count
}

// outBuffer is the terminal's side of a screen: it keeps what is
// written, and fails writes once failAt writes have been made (if set).
type outBuffer struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes int
	failAt int // the write that fails, counting from 1; 0 for none
	err    error
}

func (o *outBuffer) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.writes++
	if o.failAt > 0 && o.writes >= o.failAt {
		return 0, o.err
	}
	return o.b.Write(p)
}

func (o *outBuffer) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}

// vtermWidth and vtermHeight are the size of the virtual terminal that
// tests replay a screen's output on: larger than any screen they run,
// so that it needs no resizing; what is outside the screen must be
// blank.
const vtermWidth, vtermHeight = 200, 100

// screen replays what was written on a virtual terminal, as far as the
// alternate screen is left.
func (o *outBuffer) screen(t testing.TB) [][]vterm.Cell {
	t.Helper()
	vt := vterm.New(vtermWidth, vtermHeight)
	vt.Lenient = true
	if err := vt.Apply([]byte(o.String())); err != nil {
		t.Fatalf("replaying the output: %v\noutput: %q", err, o.String())
	}
	return vt.Cells()
}

// shows reports whether the output leaves a w×h screen with profile p
// showing view.
func (o *outBuffer) shows(t testing.TB, p colorprofile.Profile, w, h int, view string) bool {
	t.Helper()
	want := vterm.Want(p, vtermWidth, vtermHeight, "")
	for y, row := range vterm.Want(p, w, h, view) {
		copy(want[y], row)
	}
	return vterm.Diff(o.screen(t), want) == ""
}

// keyboard is a screen's input: each Read returns one typed chunk.
// It counts the Reads begun, so that a test knows when a chunk has been
// handled: the input reader asks for the next one only after it has
// delivered the last.
type keyboard struct {
	chunks    chan string
	reads     atomic.Int64
	closeOnce sync.Once
}

func newKeyboard() *keyboard { return &keyboard{chunks: make(chan string)} }

func (k *keyboard) Read(p []byte) (int, error) {
	k.reads.Add(1)
	s, ok := <-k.chunks
	if !ok {
		return 0, io.EOF
	}
	if len(s) > len(p) {
		panic("keyboard: chunk longer than the read")
	}
	return copy(p, s), nil
}

// close ends the input.
func (k *keyboard) close() { k.closeOnce.Do(func() { close(k.chunks) }) }

// run is a screen running in the background.
type run struct {
	s      *Screen
	model  *testModel
	out    *outBuffer
	in     *keyboard
	typed  int64 // chunks typed
	cancel context.CancelFunc
	done   chan struct{}
	err    error
}

// start runs model on a screen with opts (80×24 TrueColor unless set)
// until the test ends. Unless opts.Unsupported is set, whatever the model
// asks for that the screen does not do fails the test.
func start(t *testing.T, model *testModel, out *outBuffer, opts Options) *run {
	t.Helper()
	if opts.Unsupported == nil {
		opts.Unsupported = failUnsupported(t)
	}
	if opts.Width == 0 {
		opts.Width, opts.Height = 80, 24
	}
	if opts.Profile == colorprofile.Unknown {
		opts.Profile = colorprofile.TrueColor
	}
	if out == nil {
		out = &outBuffer{}
	}
	kb := newKeyboard()
	ctx, cancel := context.WithCancel(context.Background())
	r := &run{s: New(model, out, opts), model: model, out: out, in: kb, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.err = r.s.Run(ctx, kb)
	}()
	t.Cleanup(func() {
		r.s.Stop()
		cancel()
		kb.close()
		<-r.done
	})
	return r
}

// wait waits for Run to return, and returns its error.
func (r *run) wait(t testing.TB) error {
	t.Helper()
	select {
	case <-r.done:
		return r.err
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return")
		return nil
	}
}

func (r *run) ended() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// typeKeys types keys in one read and returns once they have been
// delivered (to the model, unless the screen has ended).
func (r *run) typeKeys(t testing.TB, keys string) {
	t.Helper()
	select {
	case r.in.chunks <- keys:
	case <-time.After(10 * time.Second):
		t.Fatal("the screen does not read its input")
	}
	r.typed++
	waitFor(t, "the keys to be handled", func() bool { return r.in.reads.Load() > r.typed })
}

func TestScreenStart(t *testing.T) {
	m := &testModel{}
	r := start(t, m, nil, Options{Width: 30, Height: 5, Profile: colorprofile.ANSI256})
	waitFor(t, "the first frame", func() bool { return r.out.shows(t, colorprofile.ANSI256, 30, 5, "count 0\nkeys ") })
	out := r.out.String()
	first := out[:strings.Index(out, "count")]
	for _, seq := range []string{ansi.SetModeAltScreenSaveCursor, ansi.HideCursor, ansi.RequestBackgroundColor} {
		if !strings.Contains(first, seq) {
			t.Errorf("the output before the first frame lacks %q: %q", seq, first)
		}
	}
	waitFor(t, "the window size and colour profile", func() bool { return len(m.messages()) >= 2 })
	got := m.messages()[:2]
	want := []tea.Msg{tea.WindowSizeMsg{Width: 30, Height: 5}, tea.ColorProfileMsg{Profile: colorprofile.ANSI256}}
	if !slices.Equal(got, want) {
		t.Errorf("first messages: got %v, want %v", got, want)
	}
}

// TestScreenOneFrameForARead: the keys of one read are all applied
// before the frame that shows them; no frame shows only the first.
func TestScreenOneFrameForARead(t *testing.T) {
	m := &testModel{}
	r := start(t, m, nil, Options{})
	waitFor(t, "the first frame", func() bool { return m.views.Load() == 1 })
	time.Sleep(50 * time.Millisecond) // past the frame interval, so the next frame is drawn at once
	r.typeKeys(t, "abcd")
	time.Sleep(50 * time.Millisecond) // a frame the keys left waiting for its interval would be drawn by now
	if got := m.views.Load(); got != 2 {
		t.Errorf("View called %d times for the first frame and one read of four keys, want 2", got)
	}
	if !r.out.shows(t, colorprofile.TrueColor, 80, 24, "count 0\nkeys a,b,c,d") {
		t.Errorf("the screen does not show the four keys: %q", r.out.String())
	}
}

func TestScreenKeysInOrder(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		want   []string
	}{
		{"one write", []string{"abc"}, []string{"a", "b", "c"}},
		{"a write each", []string{"a", "b", "c"}, []string{"a", "b", "c"}},
		{"keys and arrows", []string{"x\x1b[A", "\x1bOBy", "\x03"}, []string{"x", "up", "down", "y", "ctrl+c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &testModel{}
			r := start(t, m, nil, Options{})
			for _, w := range tt.writes {
				r.typeKeys(t, w)
			}
			if got := m.typed(); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			view := "count 0\nkeys " + strings.Join(tt.want, ",")
			waitFor(t, "the frame with the keys", func() bool { return r.out.shows(t, colorprofile.TrueColor, 80, 24, view) })
		})
	}
}

func TestScreenQuit(t *testing.T) {
	tests := []struct {
		name      string
		altScreen bool
		want      string // printed after leaving the alternate screen
	}{
		{"last view printed", false, "count 0\r\nkeys a,q"},
		{"alt-screen view not printed", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &testModel{altScreen: tt.altScreen}
			r := start(t, m, nil, Options{})
			r.typeKeys(t, "aq")
			if err := r.wait(t); err != nil {
				t.Fatalf("Run: %v", err)
			}
			out := r.out.String()
			i := strings.LastIndex(out, ansi.ResetModeAltScreenSaveCursor)
			if i < 0 {
				t.Fatalf("the alternate screen is not left: %q", out)
			}
			after := out[i+len(ansi.ResetModeAltScreenSaveCursor):]
			if !strings.HasPrefix(after, ansi.ShowCursor+popTitle) {
				t.Errorf("the cursor is not shown again, or the title not restored: %q", after)
			}
			if got := strings.Replace(after, ansi.ShowCursor+popTitle, "", 1); got != tt.want {
				t.Errorf("after leaving the alternate screen: got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestScreenQuitLineEndings: the last view's lines end in CRLF on the
// main screen, whatever the view's line endings.
func TestScreenQuitLineEndings(t *testing.T) {
	for _, content := range []string{"a\nb\n", "a\r\nb\r\n", "a\nb\r\n"} {
		t.Run(fmt.Sprintf("%q", content), func(t *testing.T) {
			out := &outBuffer{}
			s := New(&quitModel{content: content}, out, Options{Width: 10, Height: 5, Unsupported: failUnsupported(t)})
			if err := s.Run(context.Background(), strings.NewReader("")); err != nil {
				t.Fatal(err)
			}
			got := out.String()
			if want := ansi.ResetModeAltScreenSaveCursor + ansi.ShowCursor + popTitle + "a\r\nb\r\n"; !strings.HasSuffix(got, want) {
				t.Errorf("the output ends %q, want %q", got[max(0, len(got)-40):], want)
			}
		})
	}
}

// quitModel shows its content and quits at once.
type quitModel struct{ content string }

func (m *quitModel) Init() tea.Cmd                       { return tea.Quit }
func (m *quitModel) Update(tea.Msg) (tea.Model, tea.Cmd) { return m, nil }
func (m *quitModel) View() tea.View                      { return tea.NewView(m.content) }

func TestScreenEnds(t *testing.T) {
	tests := []struct {
		name string
		end  func(r *run)
	}{
		{"Stop", func(r *run) { r.s.Stop() }},
		{"Stop twice", func(r *run) { r.s.Stop(); r.s.Stop() }},
		{"context cancelled", func(r *run) { r.cancel() }},
		{"quit", func(r *run) { r.s.Send(tea.QuitMsg{}) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := start(t, &testModel{}, nil, Options{})
			r.typeKeys(t, "a")
			tt.end(r)
			if err := r.wait(t); err != nil {
				t.Errorf("Run: %v", err)
			}
		})
	}
}

// TestScreenStopBeforeRun: a screen stopped before it runs ends at once.
func TestScreenStopBeforeRun(t *testing.T) {
	s := New(&testModel{}, &outBuffer{}, Options{Unsupported: failUnsupported(t)})
	s.Stop()
	kb := newKeyboard()
	defer kb.close()
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background(), kb) }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return")
	}
}

// TestScreenSendAfterEnd: once the screen has ended, Send returns at
// once, and neither it nor keys typed after reach the model or make a
// frame.
func TestScreenSendAfterEnd(t *testing.T) {
	tests := []struct {
		name string
		end  func(t *testing.T, r *run)
	}{
		{name: "quit", end: func(t *testing.T, r *run) { r.typeKeys(t, "q") }},
		{name: "write error", end: func(t *testing.T, r *run) {
			r.out.mu.Lock()
			r.out.failAt, r.out.err = r.out.writes+1, errors.New("gone")
			r.out.mu.Unlock()
			r.s.Send(tea.WindowSizeMsg{Width: 20, Height: 20}) // a redraw, at once
		}},
		{name: "Stop", end: func(t *testing.T, r *run) { r.s.Stop() }},
		{name: "context cancelled", end: func(t *testing.T, r *run) { r.cancel() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &testModel{}
			r := start(t, m, nil, Options{})
			r.typeKeys(t, "a")
			tt.end(t, r)
			r.wait(t)
			seen, written := len(m.messages()), r.out.String()

			sent := make(chan struct{})
			go func() {
				defer close(sent)
				r.s.Send(countMsg{})
				r.s.Send(tea.WindowSizeMsg{Width: 10, Height: 10}) // a redraw, at once
			}()
			select {
			case <-sent:
			case <-time.After(10 * time.Second):
				t.Fatal("Send after the end blocks")
			}
			r.typeKeys(t, "bcd")
			if got := len(m.messages()); got != seen {
				t.Errorf("the model got %d more messages after the end: %v", got-seen, m.messages()[seen:])
			}
			if got := r.out.String(); got != written {
				t.Errorf("%q written after the end", got[len(written):])
			}
		})
	}
}

// TestScreenNoFrameAfterStop: a frame waiting for the end of its frame
// interval is not drawn once the screen has been stopped. This waits
// for the interval to pass; under load the timer may fire later than
// that, and the test miss the frame, but it does not fail wrongly.
func TestScreenNoFrameAfterStop(t *testing.T) {
	for _, end := range []string{"Stop", "context cancelled"} {
		t.Run(end, func(t *testing.T) {
			const fps = 10
			m := &testModel{}
			r := start(t, m, nil, Options{FPS: fps})
			waitFor(t, "the first frame", func() bool { return m.views.Load() > 0 })
			r.s.Send(countMsg{}) // within the interval of the first frame: drawn at its end
			sent := time.Now()
			if end == "Stop" {
				r.s.Stop()
			} else {
				r.cancel()
			}
			r.wait(t)
			views := m.views.Load()
			for time.Since(sent) < 3*time.Second/fps {
				time.Sleep(time.Millisecond)
			}
			if got := m.views.Load(); got != views {
				t.Errorf("View called %d times after Run returned", got-views)
			}
		})
	}
}

// TestScreenSendBeforeRun: messages sent before Run are not lost, and
// reach the model after Init and the window size, as with tea.Program.
func TestScreenSendBeforeRun(t *testing.T) {
	m := &testModel{}
	out := &outBuffer{}
	s := New(m, out, Options{Width: 30, Height: 5, Unsupported: failUnsupported(t)})
	s.Send(countMsg{})
	s.Send(tea.QuitMsg{})
	kb := newKeyboard()
	defer kb.close()
	if err := s.Run(context.Background(), kb); err != nil {
		t.Fatal(err)
	}
	if msgs := m.messages(); len(msgs) == 0 || msgs[0] != (tea.WindowSizeMsg{Width: 30, Height: 5}) {
		t.Errorf("the model's first message is not its window size: %v", msgs)
	}
	if got := out.String(); strings.LastIndex(got, ansi.SetModeAltScreenSaveCursor) > strings.LastIndex(got, ansi.ResetModeAltScreenSaveCursor) {
		t.Errorf("the terminal is left on the alternate screen: %q", got)
	}
}

func TestScreenCommands(t *testing.T) {
	cmd := func(name string) tea.Cmd { return func() tea.Msg { return namedMsg(name) } }
	m := &testModel{
		init: tea.Batch(cmd("init a"), cmd("init b"), nil),
		onMsg: func(msg tea.Msg) tea.Cmd {
			switch msg {
			case namedMsg("init a"):
				return cmd("after a")
			case namedMsg("init b"):
				return tea.Batch(cmd("after b 1"), tea.Batch(cmd("after b 2"), cmd("after b 3")))
			}
			return nil
		},
	}
	start(t, m, nil, Options{})
	want := []namedMsg{"init a", "init b", "after a", "after b 1", "after b 2", "after b 3"}
	got := func() []namedMsg {
		var got []namedMsg
		for _, msg := range m.messages() {
			if n, ok := msg.(namedMsg); ok {
				got = append(got, n)
			}
		}
		slices.Sort(got) // commands run concurrently
		return got
	}
	slices.Sort(want)
	waitFor(t, "the commands' messages", func() bool { return len(got()) >= len(want) })
	if !slices.Equal(got(), want) {
		t.Errorf("got %q, want %q", got(), want)
	}
	for _, msg := range m.messages() {
		if _, ok := msg.(tea.BatchMsg); ok {
			t.Errorf("the model got a tea.BatchMsg")
		}
	}
}

func TestScreenWriteError(t *testing.T) {
	errGone := errors.New("session gone")
	for _, failAt := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("write %d", failAt), func(t *testing.T) {
			r := start(t, &testModel{}, &outBuffer{failAt: failAt, err: errGone}, Options{})
			// Messages make frames until a write fails.
			waitFor(t, "a failed write to end Run", func() bool {
				r.s.Send(countMsg{})
				return r.ended()
			})
			if err := r.wait(t); !errors.Is(err, errGone) {
				t.Errorf("Run: got %v, want %v", err, errGone)
			}
		})
	}
}

// TestScreenFramesCoalesce: messages faster than frames are all applied,
// and drawn in fewer frames; the last frame shows the last message.
func TestScreenFramesCoalesce(t *testing.T) {
	const msgs = 500
	m := &testModel{}
	r := start(t, m, nil, Options{Width: 20, Height: 3, FPS: 10})
	waitFor(t, "the first frame", func() bool { return r.out.shows(t, colorprofile.TrueColor, 20, 3, "count 0\nkeys ") })
	before := m.views.Load()
	for range msgs {
		r.s.Send(countMsg{})
	}
	if got := m.counted(); got != msgs {
		t.Fatalf("the model counted %d of %d messages", got, msgs)
	}
	waitFor(t, "the last frame", func() bool {
		return r.out.shows(t, colorprofile.TrueColor, 20, 3, fmt.Sprintf("count %d\nkeys ", msgs))
	})
	if frames := m.views.Load() - before; frames > msgs/10 {
		t.Errorf("%d messages made %d frames at 10 frames a second", msgs, frames)
	}
}

// TestScreenKeyNotHeldByTheInterval: a key typed within the frame
// interval of a frame something else asked for (an opponent's move, a
// clock) is drawn at once, not at the end of the interval; messages that
// are not keys still wait for it.
func TestScreenKeyNotHeldByTheInterval(t *testing.T) {
	m := &testModel{}
	r := start(t, m, nil, Options{Width: 20, Height: 3, FPS: 1})
	waitFor(t, "the first frame", func() bool { return r.out.shows(t, colorprofile.TrueColor, 20, 3, "count 0\nkeys ") })
	time.Sleep(1100 * time.Millisecond) // past the interval: the next frame goes at once
	r.s.Send(countMsg{})
	waitFor(t, "the message's frame", func() bool { return r.out.shows(t, colorprofile.TrueColor, 20, 3, "count 1\nkeys ") })
	r.s.Send(countMsg{}) // within the interval: held for it
	r.typeKeys(t, "a")   // a key: drawn at once, with the message before it
	if !r.out.shows(t, colorprofile.TrueColor, 20, 3, "count 2\nkeys a") {
		t.Fatalf("a key typed within the interval is not drawn at once: %q", r.out.String())
	}
	r.s.Send(countMsg{})
	time.Sleep(200 * time.Millisecond)
	if r.out.shows(t, colorprofile.TrueColor, 20, 3, "count 3\nkeys a") {
		t.Fatal("a message that is not a key was drawn within the interval")
	}
	waitFor(t, "the held frame", func() bool { return r.out.shows(t, colorprofile.TrueColor, 20, 3, "count 3\nkeys a") })
}

func TestScreenResize(t *testing.T) {
	m := &testModel{long: true}
	r := start(t, m, nil, Options{Width: 20, Height: 3, Profile: colorprofile.ANSI})
	waitFor(t, "the first frame", func() bool {
		return r.out.shows(t, colorprofile.ANSI, 20, 3, "count 0\nkeys \n"+longLine)
	})
	for _, size := range [][2]int{{6, 1}, {40, 10}, {0, 0}, {80, 24}, {30, 2}} {
		r.s.Send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		r.s.Send(countMsg{})
		w, h := max(size[0], 1), max(size[1], 1)
		view := fmt.Sprintf("count %d\nkeys \n%s", m.counted(), longLine)
		waitFor(t, fmt.Sprintf("the frame at %dx%d", w, h), func() bool { return r.out.shows(t, colorprofile.ANSI, w, h, view) })
		var last tea.WindowSizeMsg
		for _, msg := range m.messages() {
			if ws, ok := msg.(tea.WindowSizeMsg); ok {
				last = ws
			}
		}
		if last != (tea.WindowSizeMsg{Width: size[0], Height: size[1]}) {
			t.Errorf("the model's last window size is %v, want %v", last, size)
		}
	}
}

func TestScreenWindowTitle(t *testing.T) {
	m := &testModel{title: "2048"}
	r := start(t, m, nil, Options{})
	r.typeKeys(t, "a")
	waitFor(t, "the key's frame", func() bool { return r.out.shows(t, colorprofile.TrueColor, 80, 24, "count 0\nkeys a") })
	m.mu.Lock()
	m.title = "2048 – game over"
	m.mu.Unlock()
	r.typeKeys(t, "b")
	waitFor(t, "the next frame", func() bool { return r.out.shows(t, colorprofile.TrueColor, 80, 24, "count 0\nkeys a,b") })
	out := r.out.String()
	if n := strings.Count(out, ansi.SetWindowTitle("2048")); n != 1 {
		t.Errorf("the title is set %d times, want once: %q", n, out)
	}
	if n := strings.Count(out, ansi.SetWindowTitle("2048 – game over")); n != 1 {
		t.Errorf("the new title is set %d times, want once: %q", n, out)
	}
}

func TestScreenBackgroundColor(t *testing.T) {
	m := &testModel{}
	r := start(t, m, nil, Options{})
	r.typeKeys(t, "\x1b]11;rgb:ffff/ffff/ffff\x07")
	waitFor(t, "the background colour", func() bool {
		for _, msg := range m.messages() {
			if bg, ok := msg.(tea.BackgroundColorMsg); ok {
				return !bg.IsDark()
			}
		}
		return false
	})
}

// TestScreenNoGoroutineLeak: when Run has returned and the input has
// ended, nothing of the screen is left running.
func TestScreenNoGoroutineLeak(t *testing.T) {
	tests := []struct {
		name string
		end  func(t *testing.T, r *run)
	}{
		{"quit", func(t *testing.T, r *run) { r.typeKeys(t, "q") }},
		{"Stop", func(t *testing.T, r *run) { r.s.Stop() }},
		{"context cancelled", func(t *testing.T, r *run) { r.cancel() }},
		{"write error", func(t *testing.T, r *run) {
			r.out.mu.Lock()
			r.out.failAt, r.out.err = r.out.writes+1, errors.New("gone")
			r.out.mu.Unlock()
			r.s.Send(countMsg{})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			func() {
				m := &testModel{init: func() tea.Msg { return namedMsg("init") }}
				r := start(t, m, nil, Options{FPS: 10})
				r.typeKeys(t, "abc")
				for range 20 {
					r.s.Send(countMsg{}) // a timed frame pending
				}
				tt.end(t, r)
				r.wait(t)
				r.in.close()
			}()
			waitFor(t, "the screen's goroutines to end", func() bool { return runtime.NumGoroutine() <= before })
		})
	}
}

// pusher is an input that hands its bytes over (inputPusher), as the
// server's SSH sessions do; a read of it fails the test.
type pusher struct {
	t       *testing.T
	can     bool
	deliver chan func([]byte, error)
	*keyboard
}

func (p *pusher) PushInput(deliver func([]byte, error)) bool {
	if !p.can {
		return false
	}
	p.deliver <- deliver
	return true
}

func (p *pusher) Read(b []byte) (int, error) {
	if p.can {
		p.t.Error("a screen read an input that pushes")
	}
	return p.keyboard.Read(b)
}

// TestScreenPushedInput: given an input that pushes its bytes, a screen
// takes them as they come, in order, and reads nothing; the input's end
// decodes what was left waiting (a lone escape). An input that cannot
// push is read.
func TestScreenPushedInput(t *testing.T) {
	t.Run("pushed", func(t *testing.T) {
		m := &testModel{}
		in := &pusher{t: t, can: true, deliver: make(chan func([]byte, error), 1), keyboard: newKeyboard()}
		s := New(m, &outBuffer{}, Options{Width: 80, Height: 24, Profile: colorprofile.TrueColor, Unsupported: failUnsupported(t)})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- s.Run(ctx, in) }()
		t.Cleanup(func() { cancel(); <-done })
		var deliver func([]byte, error)
		select {
		case deliver = <-in.deliver:
		case <-time.After(10 * time.Second):
			t.Fatal("the screen did not ask for its input pushed")
		}
		deliver([]byte("x\x1b[A"), nil)
		deliver([]byte("y\x1b"), nil)
		if got, want := m.typed(), []string{"x", "up", "y"}; !slices.Equal(got, want) {
			t.Fatalf("got %q, want %q (the escape waits for the rest of its sequence)", got, want)
		}
		deliver(nil, io.EOF)
		if got, want := m.typed(), []string{"x", "up", "y", "esc"}; !slices.Equal(got, want) {
			t.Fatalf("after the end: got %q, want %q", got, want)
		}
	})
	t.Run("read", func(t *testing.T) {
		m := &testModel{}
		in := &pusher{t: t, keyboard: newKeyboard()}
		s := New(m, &outBuffer{}, Options{Width: 80, Height: 24, Profile: colorprofile.TrueColor, Unsupported: failUnsupported(t)})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- s.Run(ctx, in) }()
		t.Cleanup(func() { cancel(); in.close(); <-done })
		in.chunks <- "z"
		waitFor(t, "the key read", func() bool { return slices.Equal(m.typed(), []string{"z"}) })
	})
}

// TestScreenAbandon: a screen abandoned (its model did not quit when
// asked) gives the terminal back and leaves the line on it, as quitting
// does, without drawing the model's view again; abandoning an ended
// screen writes nothing.
func TestScreenAbandon(t *testing.T) {
	m := &testModel{}
	r := start(t, m, nil, Options{})
	waitFor(t, "the first frame", func() bool { return m.views.Load() > 0 })
	views := m.views.Load()
	r.s.Abandon("The server is restarting.")
	if err := r.wait(t); err != nil {
		t.Fatalf("Run: %v", err)
	}
	out := r.out.String()
	i := strings.LastIndex(out, ansi.ResetModeAltScreenSaveCursor)
	if i < 0 {
		t.Fatalf("the alternate screen is not left: %q", out)
	}
	if got, want := out[i:], ansi.ResetModeAltScreenSaveCursor+ansi.ShowCursor+popTitle+"The server is restarting.\r\n"; got != want {
		t.Errorf("the screen's last bytes: %q, want %q", got, want)
	}
	if got := m.views.Load(); got != views {
		t.Errorf("View called %d times more by Abandon", got-views)
	}
	r.s.Abandon("again")
	if got := r.out.String(); got != out {
		t.Errorf("abandoning an ended screen wrote %q", got[len(out):])
	}
}
