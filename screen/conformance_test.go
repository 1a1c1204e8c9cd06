package screen_test

// The conformance tests play the same keys through tea.Program and
// through Screen, with the real screens of package tui as the model (the
// game screen here; the race screens, a replay and a spectator in
// conformance_views_test.go), and compare what the two leave on a
// terminal, cell by cell: the screen claims to do what tea.Program does
// for such a model, and every Bubble Tea upgrade can break that claim. Both outputs are fed to the
// same virtual terminal emulator (charmbracelet/x/vt), which also answers
// the queries each writes, as a terminal would.

import (
	"bytes"
	"context"
	"fmt"
	"image/color"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/vt"

	"github.com/ssh2048/ssh2048/screen"
	"github.com/ssh2048/ssh2048/tui"
)

// step is one thing the player does: keys typed in one write, or a
// window resized; then both terminals must show the same.
type step struct {
	keys   []string // key names, as keyBytes has them; typed in one write
	paste  string   // pasted text, in bracketed paste markers
	resize [2]int   // a new window size, if set
	// do, if set, is what happens instead of keys: something outside the
	// model (a move in the game a spectator watches).
	do func()
	// shows is text both screens must show after the step, so that a
	// step whose frame has not come yet is not compared too early.
	shows string
	quits bool // the model quits: both sides must end
}

// keyBytes is what a terminal sends for each key name.
var keyBytes = map[string]string{
	"up": "\x1b[A", "down": "\x1b[B", "right": "\x1b[C", "left": "\x1b[D",
	"esc": "\x1b", "tab": "\t", "enter": "\r",
}

func (st step) input() string {
	if st.paste != "" {
		return "\x1b[200~" + st.paste + "\x1b[201~"
	}
	var b strings.Builder
	for _, k := range st.keys {
		if seq, ok := keyBytes[k]; ok {
			b.WriteString(seq)
		} else {
			b.WriteString(k)
		}
	}
	return b.String()
}

// inputs is how many key or paste messages the step makes.
func (st step) inputs() int64 {
	if st.paste != "" {
		return 1
	}
	return int64(len(st.keys))
}

func keys(names ...string) step { return step{keys: names} }

var moves = keys("left", "up", "right", "down", "left", "left", "up", "right")

// scripts are the conformance scripts: each starts a new game screen on
// both sides.
var scripts = []struct {
	name  string
	steps []step
}{
	{"moves", []step{moves, keys("down", "down", "right"), keys("up")}},
	{"one key a write", []step{keys("left"), keys("up"), keys("right"), keys("down"), keys("left")}},
	{"help", []step{moves, {keys: []string{"?"}, shows: "Slide the tiles"}, keys("esc"), keys("up")}},
	{"leaderboard", []step{moves, {keys: []string{"tab"}, shows: "you are ann"}, keys("tab"), keys("left")}},
	{"board sizes", []step{moves, {keys: []string{"5"}, shows: "5×5"}, moves, {keys: []string{"3"}, shows: "3×3"}, moves, keys("4")}},
	{"new game", []step{moves, {keys: []string{"n"}, shows: "Start a new game?"}, keys("n"), keys("n"), keys("y"), moves}},
	{"resize mid-game", []step{
		moves,
		{resize: [2]int{100, 30}}, keys("up"),
		{resize: [2]int{40, 12}}, keys("left"),
		{resize: [2]int{20, 6}}, keys("down"),
		{resize: [2]int{80, 24}}, moves,
	}},
	// tea.Program reads a bracketed paste as one tea.PasteMsg, which the
	// game screen ignores; read as keys, it would start a new game.
	{"paste", []step{moves, {paste: "nnn?"}, keys("right")}},
	{"quit", []step{moves, {keys: []string{"q"}, shows: "Your game is saved", quits: true}}},
}

func TestConformance(t *testing.T) {
	// The screen as the server runs it (on a terminal that erases with
	// the background colour, line feeds as written), and as it runs
	// where neither is known.
	terms := []struct {
		name string
		opts screen.Options
	}{
		{"xterm-256color", screen.Options{Term: "xterm-256color", RawLineFeed: true}},
		{"plain", screen.Options{}},
	}
	for pi, p := range []colorprofile.Profile{colorprofile.TrueColor, colorprofile.ANSI256, colorprofile.ASCII} {
		for i, sc := range scripts {
			term := terms[(pi+i)%len(terms)] // each script on each, in one profile or another
			// The screen takes the game screen's view as a string, or has
			// it written into its buffers as the server's player screens
			// do (screen.ViewAppender): each script both ways, in one
			// profile or another.
			appends := (pi+i/len(terms))%2 == 0
			t.Run(fmt.Sprintf("%s/%s/%s/appends=%v", p, term.name, sc.name, appends), func(t *testing.T) {
				t.Parallel()
				const w, h = 80, 24
				prog := startProgram(t, p, w, h, guestGame())
				scr := startScreen(t, p, w, h, term.opts, appends, guestGame())
				play(t, []*side{prog, scr}, "Moves", sc.steps)
			})
		}
	}
}

// guestGame is the game screen of a guest, "ann", on a fresh board.
func guestGame() tea.Model {
	return tui.New(tui.Options{
		Store:  tui.NewGuestStore(nil, func() uint64 { return 1 }),
		Player: "ann",
	})
}

// play compares the sides' first frames, which show first, then takes
// each step on every side and compares again.
func play(t *testing.T, sides []*side, first string, steps []step) {
	t.Helper()
	compare(t, "the first frame", sides, first)
	var typed int64
	for i, st := range steps {
		what := fmt.Sprintf("step %d %+v", i+1, st)
		if st.resize != [2]int{} {
			for _, s := range sides {
				s.resize(st.resize[0], st.resize[1])
			}
			for _, s := range sides {
				waitFor(t, what+": the new size on "+s.name, func() bool { return s.model.size() == st.resize })
			}
		} else if st.do != nil {
			st.do()
		} else {
			typed += st.inputs()
			for _, s := range sides {
				s.in.write(st.input())
			}
			for _, s := range sides {
				waitFor(t, what+": the keys on "+s.name, func() bool { return s.model.inputs.Load() >= typed })
			}
		}
		if st.quits {
			for _, s := range sides {
				waitFor(t, what+": the end of "+s.name, s.ended)
			}
		}
		compare(t, what, sides, st.shows)
	}
}

// side is one way of running the model: tea.Program or Screen.
type side struct {
	name string
	// skip, if set, marks the rows not compared (those that hold it):
	// where two racers' screens differ (see TestConformanceRace).
	skip  string
	term  *terminal
	in    *queue
	model *probe
	send  func(tea.Msg)
	done  chan struct{}
}

// startProgram runs m in a tea.Program on a virtual
// terminal until the test ends.
func startProgram(t *testing.T, p colorprofile.Profile, w, h int, m tea.Model) *side {
	t.Helper()
	s := newSide(t, "tea.Program", w, h, true, m)
	ctx, cancel := context.WithCancel(context.Background())
	prog := tea.NewProgram(s.model,
		tea.WithContext(ctx), tea.WithInput(s.in), tea.WithOutput(s.term),
		tea.WithColorProfile(p), tea.WithWindowSize(w, h),
		tea.WithoutSignalHandler())
	s.run(t, cancel, prog.Send, func() error {
		if _, err := prog.Run(); err != nil && ctx.Err() == nil {
			return err
		}
		return nil
	})
	return s
}

// startScreen runs m on a Screen on a virtual terminal
// until the test ends; whatever the game screen asks for that the Screen
// does not do fails the test. With appends, the screen has the view
// written into its buffers (screen.ViewAppender).
func startScreen(t *testing.T, p colorprofile.Profile, w, h int, opts screen.Options, appends bool, m tea.Model) *side {
	t.Helper()
	s := newSide(t, "screen.Screen", w, h, false, m)
	opts.Width, opts.Height, opts.Profile = w, h, p
	opts.Unsupported = func(what string) {
		t.Errorf("the game screen asked for %s, which package screen does not do", what)
	}
	var model tea.Model = s.model
	if appends {
		model = appendingProbe{s.model}
		if _, ok := m.(screen.ViewRedrawer); ok {
			model = redrawingProbe{appendingProbe{s.model}}
		}
	}
	scr := screen.New(model, s.term, opts)
	ctx, cancel := context.WithCancel(context.Background())
	s.run(t, cancel, scr.Send, func() error { return scr.Run(ctx, s.in) })
	return s
}

// run runs the side's program in the background until the test ends.
func (s *side) run(t *testing.T, cancel context.CancelFunc, send func(tea.Msg), run func() error) {
	s.send, s.done = send, make(chan struct{})
	go func() {
		defer close(s.done)
		if err := run(); err != nil {
			t.Errorf("%s: %v", s.name, err)
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-s.done
		s.in.close()
		s.term.close()
	})
}

// resize gives the terminal a new size and tells the program, as the
// SSH server and a terminal's SIGWINCH do.
func (s *side) resize(w, h int) {
	s.term.resize(w, h)
	s.send(tea.WindowSizeMsg{Width: w, Height: h})
}

// snapshot is what the side's terminal shows, the rows it skips blank.
func (s *side) snapshot() snapshot {
	snap := s.term.snapshot()
	if s.skip == "" {
		return snap
	}
	for y, row := range snap.cells {
		var text strings.Builder
		for _, c := range row {
			text.WriteString(c.Content)
		}
		if strings.Contains(text.String(), s.skip) {
			snap.cells[y] = make([]uv.Cell, len(row))
		}
	}
	return snap
}

func (s *side) ended() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

func newSide(t *testing.T, name string, w, h int, onlcr bool, m tea.Model) *side {
	t.Helper()
	model := &probe{Model: m}
	s := &side{name: name, in: newQueue(), model: model}
	s.term = newTerminal(w, h, onlcr, s.in)
	return s
}

// probe is the game screen with a count of the keys it has handled and
// the last window size it was told.
type probe struct {
	tea.Model
	inputs atomic.Int64
	mu     sync.Mutex
	w, h   int
}

func (p *probe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	p.Model, cmd = p.Model.Update(msg)
	switch msg := msg.(type) {
	case tea.KeyPressMsg, tea.PasteMsg:
		p.inputs.Add(1)
	case tea.WindowSizeMsg:
		p.mu.Lock()
		p.w, p.h = msg.Width, msg.Height
		p.mu.Unlock()
	}
	return p, cmd
}

// appendingProbe is the probe with the game screen's AppendView, which
// the probe alone hides (it embeds a tea.Model).
type appendingProbe struct{ *probe }

func (a appendingProbe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := a.probe.Update(msg)
	return a, cmd
}

func (a appendingProbe) AppendView(dst []byte) (tea.View, []byte) {
	return a.Model.(screen.ViewAppender).AppendView(dst)
}

// redrawingProbe is the appendingProbe of a model that can also write
// its last view again (screen.ViewRedrawer), as a racer's screen can.
type redrawingProbe struct{ appendingProbe }

func (r redrawingProbe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := r.probe.Update(msg)
	return r, cmd
}

func (r redrawingProbe) LastRedrawable() bool {
	return r.Model.(screen.ViewRedrawer).LastRedrawable()
}

func (r redrawingProbe) AppendLastView(dst []byte) []byte {
	return r.Model.(screen.ViewRedrawer).AppendLastView(dst)
}

func (p *probe) size() [2]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return [2]int{p.w, p.h}
}

// queue is a terminal's input: keys the test types and the terminal's
// answers to queries. Writes never block, so that a program writing a
// query does not wait for its own input reader.
type queue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	buf    []byte
	closed bool
}

func newQueue() *queue {
	q := &queue{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

func (q *queue) write(s string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.buf = append(q.buf, s...)
	q.cond.Broadcast()
}

func (q *queue) Write(p []byte) (int, error) {
	q.write(string(p))
	return len(p), nil
}

func (q *queue) Read(p []byte) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.buf) == 0 && !q.closed {
		q.cond.Wait()
	}
	if len(q.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, q.buf)
	q.buf = q.buf[n:]
	return n, nil
}

func (q *queue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	q.cond.Broadcast()
}

// terminal is a virtual terminal a program writes to; it answers
// queries on the program's input, and knows when it was last written.
type terminal struct {
	// onlcr has the terminal start a new line at a line feed, as a
	// terminal in cooked mode does (the tty's ONLCR). tea.Program counts
	// on it when its input is not a terminal (see mapNl in Bubble Tea's
	// tea.go); a Screen counts on nothing of the sort: an SSH channel
	// maps nothing.
	onlcr bool

	mu      sync.Mutex
	vt      *vt.Emulator
	written time.Time
}

func newTerminal(w, h int, onlcr bool, answers *queue) *terminal {
	term := &terminal{vt: vt.NewEmulator(w, h), onlcr: onlcr}
	go io.Copy(answers, term.vt) //nolint:errcheck // ends when the terminal is closed
	return term
}

// close ends the terminal's answers.
func (term *terminal) close() {
	if pw, ok := term.vt.InputPipe().(*io.PipeWriter); ok {
		pw.Close()
	}
}

func (term *terminal) Write(p []byte) (int, error) {
	term.mu.Lock()
	defer term.mu.Unlock()
	term.written = time.Now()
	if term.onlcr {
		if _, err := term.vt.Write(bytes.ReplaceAll(p, []byte("\n"), []byte("\r\n"))); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return term.vt.Write(p)
}

func (term *terminal) resize(w, h int) {
	term.mu.Lock()
	defer term.mu.Unlock()
	term.vt.Resize(w, h)
}

// snapshot is what the terminal shows: its cells, row by row, and
// whether that is the alternate screen.
type snapshot struct {
	alt   bool
	cells [][]uv.Cell
	quiet time.Duration // since the last write
}

func (term *terminal) snapshot() snapshot {
	term.mu.Lock()
	defer term.mu.Unlock()
	s := snapshot{alt: term.vt.IsAltScreen(), quiet: time.Since(term.written)}
	for y := range term.vt.Height() {
		row := make([]uv.Cell, term.vt.Width())
		for x := range row {
			if c := term.vt.CellAt(x, y); c != nil {
				row[x] = *c
			}
		}
		s.cells = append(s.cells, row)
	}
	return s
}

// text is the snapshot's lines, trailing blanks cut.
func (s snapshot) text() string {
	var b strings.Builder
	for _, row := range s.cells {
		var line strings.Builder
		for _, c := range row {
			switch {
			case c.Content == "" && c.Width == 0 && line.Len() == 0:
				line.WriteByte(' ')
			case c.Content == "":
				// the second column of a wide character
			default:
				line.WriteString(c.Content)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// diff describes the first difference between two snapshots, or is ""
// if they look the same: the same text in every cell, drawn in the same
// colours and attributes (of a blank, only what shows).
func diff(a, b snapshot) string {
	if a.alt != b.alt {
		return fmt.Sprintf("alternate screen %v and %v", a.alt, b.alt)
	}
	if len(a.cells) != len(b.cells) {
		return fmt.Sprintf("%d and %d rows", len(a.cells), len(b.cells))
	}
	for y := range a.cells {
		if len(a.cells[y]) != len(b.cells[y]) {
			return fmt.Sprintf("row %d: %d and %d columns", y, len(a.cells[y]), len(b.cells[y]))
		}
		for x := range a.cells[y] {
			ca, cb := a.cells[y][x], b.cells[y][x]
			if !looksLike(ca, cb) {
				return fmt.Sprintf("row %d column %d: %s and %s", y+1, x+1, cellString(ca), cellString(cb))
			}
		}
	}
	return ""
}

func blankContent(s string) bool { return s == "" || s == " " }

func looksLike(a, b uv.Cell) bool {
	if blankContent(a.Content) && blankContent(b.Content) && a.Width == b.Width {
		return sameColour(a.Style.Bg, b.Style.Bg) && a.Style.Attrs&uv.AttrReverse == b.Style.Attrs&uv.AttrReverse &&
			a.Style.Underline == b.Style.Underline
	}
	return a.Content == b.Content && a.Width == b.Width &&
		sameColour(a.Style.Fg, b.Style.Fg) && sameColour(a.Style.Bg, b.Style.Bg) &&
		a.Style.Attrs == b.Style.Attrs && a.Style.Underline == b.Style.Underline
}

func sameColour(a, b color.Color) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	ar, ag, ab, aa := a.RGBA()
	br, bg, bb, ba := b.RGBA()
	return ar == br && ag == bg && ab == bb && aa == ba
}

func cellString(c uv.Cell) string {
	return fmt.Sprintf("%q (fg %v bg %v attrs %#x underline %v)", c.Content, c.Style.Fg, c.Style.Bg, c.Style.Attrs, c.Style.Underline)
}

// settle is how long a terminal has had no output before it is
// compared: several frame intervals of both sides.
const settle = 100 * time.Millisecond

// compare waits until every side's terminal has settled, shows shows if
// it is set, and looks the same as the first side's; it fails the test if
// they do not within a few seconds, with the screens that differ. It is
// called once the models have had the step's messages: their frames are
// due within a frame interval.
func compare(t *testing.T, what string, sides []*side, shows string) {
	t.Helper()
	begun := time.Now()
	deadline := begun.Add(5 * time.Second)
	for {
		a := sides[0].snapshot()
		settled := a.quiet >= settle && time.Since(begun) >= settle
		d, other := "", 0
		if !strings.Contains(a.text(), shows) {
			d = fmt.Sprintf("%s does not show %q", sides[0].name, shows)
		}
		for i := 1; i < len(sides) && d == ""; i++ {
			b := sides[i].snapshot()
			settled = settled && b.quiet >= settle
			d, other = diff(a, b), i
		}
		if settled && d == "" {
			return
		}
		if time.Now().After(deadline) {
			b := sides[other].snapshot()
			t.Fatalf("after %s, the screens differ: %s\n%s:\n%s\n%s:\n%s", what, d,
				sides[0].name, a.text(), sides[other].name, b.text())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}
