package render

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/ssh2048/ssh2048/screen/internal/vterm"
)

// The renderer is tested against a small virtual terminal (vterm.Term)
// that understands exactly the sequences the renderer may write, and
// against an independent reading of what a frame should look like
// (vterm.Want): after every frame, the virtual screen must show the frame.

// screenCheck drives a renderer and a virtual terminal side by side.
type screenCheck struct {
	t       testing.TB
	term    testTerm
	profile colorprofile.Profile
	r       *Renderer
	vt      *vterm.Term
	frames  []string // for failure messages
}

func newScreenCheck(t testing.TB, term testTerm, w, h int) *screenCheck {
	t.Helper()
	r := newRenderer(term.profile, w, h)
	r.ech, r.lf = term.bce, term.lf
	vt := vterm.New(w, h)
	vt.BCE, vt.ONLCR = term.bce, !term.lf
	return &screenCheck{t: t, term: term, profile: term.profile, r: r, vt: vt}
}

func (c *screenCheck) w() int { w, _ := c.vt.Size(); return w }
func (c *screenCheck) h() int { _, h := c.vt.Size(); return h }

func (c *screenCheck) resize(w, h int) {
	c.r.Resize(w, h)
	c.vt.Resize(w, h)
	c.frames = append(c.frames, fmt.Sprintf("<resize %dx%d>", w, h))
}

// render draws view, failing the test if the renderer panics.
func (c *screenCheck) render(view string) *bytes.Buffer {
	c.t.Helper()
	var out bytes.Buffer
	c.frames = append(c.frames, view)
	defer func() {
		if e := recover(); e != nil {
			c.t.Fatalf("%v profile, %dx%d: the renderer panics: %v\nframes: %q", c.profile, c.w(), c.h(), e, c.frames)
		}
	}()
	c.r.Frame(&out, view)
	return &out
}

// frame draws view and checks the screen; it returns the bytes written.
func (c *screenCheck) frame(view string) []byte {
	c.t.Helper()
	out := c.render(view)
	if err := c.vt.Apply(out.Bytes()); err != nil {
		c.t.Fatalf("%v profile, %dx%d: replaying the output: %v\noutput: %q\nframes: %q", c.profile, c.w(), c.h(), err, out.Bytes(), c.frames)
	}
	if d := vterm.Diff(c.vt.Cells(), vterm.Want(c.profile, c.w(), c.h(), view)); d != "" {
		c.t.Fatalf("%v profile, %dx%d: screen differs from the frame:\n%s\noutput: %q\nframes: %q", c.profile, c.w(), c.h(), d, out.Bytes(), c.frames)
	}
	return out.Bytes()
}

// survive draws view, for a view whose look is not agreed on: the
// renderer must not panic, and must write only what the virtual
// terminal takes.
func (c *screenCheck) survive(view string) {
	c.t.Helper()
	out := c.render(view)
	if err := c.vt.Apply(out.Bytes()); err != nil {
		c.t.Fatalf("%v profile: replaying the output: %v\noutput: %q\nframes: %q", c.profile, err, out.Bytes(), c.frames)
	}
}

var testProfiles = []colorprofile.Profile{
	colorprofile.TrueColor, colorprofile.ANSI256, colorprofile.ANSI, colorprofile.ASCII, colorprofile.NoTTY,
}

// testTerm is a terminal the renderer is checked on: a colour profile,
// whether it erases with the pen's background (bce), so that the
// renderer may use ECH, and whether line feeds reach it as written (lf),
// so that the renderer may move down by them; without lf, every line
// feed arrives as CR LF.
type testTerm struct {
	profile colorprofile.Profile
	bce     bool
	lf      bool
}

func (t testTerm) String() string {
	s := t.profile.String()
	if t.bce {
		s += "+bce"
	}
	if t.lf {
		s += "+lf"
	}
	return s
}

// testTerms is every profile, with and without bce and lf.
var testTerms = func() []testTerm {
	var ts []testTerm
	for _, p := range testProfiles {
		ts = append(ts, testTerm{p, false, false}, testTerm{p, true, false}, testTerm{p, false, true}, testTerm{p, true, true})
	}
	return ts
}()

func TestRendererFrames(t *testing.T) {
	wide := lipgloss.NewStyle().Background(lipgloss.Color("#3c3a32")).Foreground(lipgloss.Color("#f9f6f2"))
	tests := []struct {
		name   string
		w, h   int
		frames []string
	}{
		{"plain", 10, 3, []string{"hello\nworld", "help\nworld!", ""}},
		{"empty lines", 5, 4, []string{"\n\nabc\n", "abc\n\n\n", "\n\n\n"}},
		{"longer than the width", 5, 2, []string{"abcdefgh\n12345", "abcdXfgh\n1234"}},
		{"more lines than the height", 3, 2, []string{"a\nb\nc\nd", "a\nx\ny", "q"}},
		{"trailing spaces", 6, 2, []string{"ab    \n  ", "ab  \x1b[44m  \x1b[m\n", "ab"}},
		{"shrinking lines", 8, 2, []string{"abcdefgh\nabcd", "abc\nab", "a\n", ""}},
		{"crlf", 6, 3, []string{"ab\r\ncd\r\n", "ab\r\nce"}},
		{"wide", 5, 2, []string{"字字字", "a字字b", "字a字", "🙂🙂", "ab🙂", "abcd字"}},
		{"wide at the edge", 3, 1, []string{"a字", "字a", "ab字", "字字"}},
		{"wide over narrow", 4, 1, []string{"abcd", "a字d", "ab字", "字cd", "abcd"}},
		{"styled", 8, 2, []string{
			wide.Render("2048") + " x",
			wide.Render("2049") + " x",
			"\x1b[38;2;1;2;3;48;2;4;5;6mab\x1b[0m cd",
			"\x1b[1mab\x1b[22mcd\x1b[4mef",
		}},
		{"styled spaces", 6, 1, []string{"\x1b[41m   \x1b[m", "\x1b[31m   \x1b[m", "\x1b[4m   ", "   ", "\x1b[7m \x1b[27m \x1b[9m \x1b[53m "}},
		{"style per line", 4, 2, []string{"\x1b[1mab\ncd", "\x1b[1mab\n\x1b[1mcd"}},
		{"sgr within a sequence of sgrs", 6, 1, []string{"\x1b[1m\x1b[31ma\x1b[0;32mb\x1b[mc\x1b[;4md"}},
		{"control characters take no cell", 6, 1, []string{"a\tb\x07c\x1b[2Jd\x1b]0;title\x07e", "a\rb"}},
		{"combining", 4, 1, []string{"e\u0301e", "ee\u0301", "\u0301ab"}},
		{"one column", 1, 3, []string{"字\na\nbc", "a\n字\n"}},
		{"last cell", 3, 2, []string{"abc\ndef", "abc\ndeF", "abC\ndef", "ab\nde"}},
	}
	for _, p := range testTerms {
		for _, tt := range tests {
			t.Run(p.String()+"/"+tt.name, func(t *testing.T) {
				c := newScreenCheck(t, p, tt.w, tt.h)
				for _, f := range tt.frames {
					c.frame(f)
				}
				// And in reverse, from where the forward run ended.
				for _, f := range slices.Backward(tt.frames) {
					c.frame(f)
				}
			})
		}
	}
}

// genFrame makes random frames: lines of plain, lipgloss-styled and
// raw-SGR text, wide graphemes, lines longer than the screen is wide and
// more of them than it is high, trailing spaces, empty lines.
type genFrame struct {
	rng *rand.Rand
}

var genText = []string{
	"a", "b", "c", "x", "y", "z", "0", "2", "4", "8", "16", "2048", " ", " ", "  ", "   ",
	"字", "🙂", "é", "e\u0301", "─", "│", "╭", "👍🏽", "日本",
}

var genStyles = []lipgloss.Style{
	lipgloss.NewStyle().Bold(true),
	lipgloss.NewStyle().Foreground(lipgloss.Color("#ff8800")),
	lipgloss.NewStyle().Background(lipgloss.Color("#3c3a32")).Foreground(lipgloss.Color("#f9f6f2")).Bold(true),
	lipgloss.NewStyle().Underline(true).Foreground(lipgloss.Color("9")),
	lipgloss.NewStyle().Reverse(true),
	lipgloss.NewStyle().Italic(true).Faint(true).Background(lipgloss.Color("236")),
	lipgloss.NewStyle().Strikethrough(true),
	lipgloss.NewStyle().Background(lipgloss.Color("#edc22e")),
	lipgloss.NewStyle().Background(lipgloss.Color("#edc22e")).Foreground(lipgloss.Color("#776e65")),
	lipgloss.NewStyle().Foreground(lipgloss.Color("241")),
}

var genSGR = []string{
	"\x1b[38;2;1;2;3;48;2;4;5;6m", "\x1b[0m", "\x1b[m", "\x1b[1m", "\x1b[31m", "\x1b[48;5;200m",
	"\x1b[4;7m", "\x1b[22m", "\x1b[39;49m", "\x1b[9m", "\x1b[53m", "\x1b[2;3m", "\x1b[0;44m",
	"\x1b[38:2::200:100:0m", "\x1b[21m", "\x1b[58;5;3;4m", "\x1b[7m", "\x1b[27m", "\x1b[97;100m",
	"\x1b[5m", "\x1b[8m", "\x1b[24m",
}

// genStyledText is genText without graphemes of more than one rune:
// lipgloss styles that underline or strike through write each rune with
// its own SGR sequences, splitting those graphemes, which the renderer
// then joins again (see TestRendererSplitGrapheme).
var genStyledText = slices.DeleteFunc(slices.Clone(genText), func(s string) bool {
	return s == "e\u0301" || s == "👍🏽"
})

func (g *genFrame) text() string { return g.textFrom(genText) }

func (g *genFrame) textFrom(from []string) string {
	var b strings.Builder
	for range 1 + g.rng.IntN(6) {
		b.WriteString(from[g.rng.IntN(len(from))])
	}
	return b.String()
}

func (g *genFrame) line() string {
	var b strings.Builder
	for range g.rng.IntN(8) {
		switch g.rng.IntN(5) {
		case 0, 1:
			b.WriteString(g.text())
		case 2:
			b.WriteString(genStyles[g.rng.IntN(len(genStyles))].Render(g.textFrom(genStyledText)))
		case 3:
			b.WriteString(genSGR[g.rng.IntN(len(genSGR))])
			b.WriteString(g.text())
		case 4:
			b.WriteString(strings.Repeat(" ", g.rng.IntN(5)))
		}
	}
	return b.String()
}

func (g *genFrame) frame(h int) string {
	lines := make([]string, g.rng.IntN(h+3))
	for i := range lines {
		lines[i] = g.line()
	}
	return strings.Join(lines, "\n")
}

// mutate makes a frame like prev: most lines kept, some changed,
// shortened or lengthened, lines added or taken away.
func (g *genFrame) mutate(prev string, h int) string {
	lines := strings.Split(prev, "\n")
	for range 1 + g.rng.IntN(3) {
		i := g.rng.IntN(len(lines))
		switch g.rng.IntN(6) {
		case 0:
			lines[i] = g.line()
		case 1: // shrink
			lines[i] = ansi.Truncate(lines[i], g.rng.IntN(ansi.StringWidth(lines[i])+1), "")
		case 2:
			lines[i] += g.text()
		case 3: // one character
			if w := ansi.StringWidth(lines[i]); w > 0 {
				at := g.rng.IntN(w)
				lines[i] = ansi.Truncate(lines[i], at, "") + g.text() + ansi.TruncateLeft(lines[i], at+1, "")
			}
		case 4:
			if len(lines) > 1 {
				lines = lines[:len(lines)-1-g.rng.IntN(len(lines)-1)]
			}
		case 5:
			lines = append(lines, g.line())
		}
	}
	if len(lines) > h+3 {
		lines = lines[:h+3]
	}
	return strings.Join(lines, "\n")
}

// TestRendererHostileViews: views no game means to draw, but that a
// renderer that writes to every session must survive: it must not
// panic, must write only what it writes for any frame (the virtual
// terminal rejects the rest), and must draw what is agreed on.
func TestRendererHostileViews(t *testing.T) {
	tests := []struct {
		name      string
		frames    []string
		undefined bool // what the screen shows is not agreed on (see unspecified): only survived
	}{
		{name: "CSI with 33 parameters", frames: []string{"\x1b[" + strings.Repeat("1;", 32) + "1mx"}},
		{name: "unfinished CSI with 33 parameters", frames: []string{"x\x1b[" + strings.Repeat(":", 32) + "0"}},
		{name: "DCS with 33 parameters", frames: []string{"\x1bP" + strings.Repeat("1;", 32) + "1q\x1b\\x"}},
		{name: "SGR parameters piling up", frames: []string{strings.Repeat("\x1b[1;1m", 17) + "x", strings.Repeat("\x1b[4;7m\x1b[38;2;1;2;3m", 20) + "y"}},
		{name: "SGR with a prefix or intermediate", frames: []string{"\x1b[>4;2mx", "\x1b[1m\x1b[?4my", "\x1b[1 mz"}},
		{name: "huge SGR parameter", frames: []string{"\x1b[99999999999999999999;1mx", "\x1b[38;5;99999999999mx"}, undefined: true},
		{name: "SGR colour that does not parse", frames: []string{"\x1b[38mx", "\x1b[48;5my", "\x1b[38;0mz", "\x1b[38;5m\x1b[1mx", "\x1b[58;1:m0", "\x1b[38;2;300;0;0mx"}, undefined: true},
		{name: "SGR sub-parameters", frames: []string{"\x1b[4:3mx", "\x1b[90:mx", "\x1b[1:2my", "\x1b[4:9mz"}, undefined: true},
		{name: "cursor and mode sequences", frames: []string{"a\x1b[5;5Hb\x1b[2Jc\x1b[?1049ld\x1b[?25he\x1b]0;title\x07f\x1b7g\x1b8h\x1bci"}},
		{name: "C0 and C1 controls", frames: []string{"a\x00b\x08c\x0bd\x0ce\x7ff\u0085g\u009bh\u009di"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, p := range testTerms {
				for _, f := range tt.frames {
					c := newScreenCheck(t, p, 10, 2)
					if tt.undefined {
						c.survive(f)
						c.survive("plain")
					} else {
						c.frame(f)
						c.frame("plain")
					}
				}
			}
		})
	}
}

// TestRendererRegressions holds bugs the renderer had, each with what it
// did wrong.
func TestRendererRegressions(t *testing.T) {
	tests := []struct {
		name, bug string
		frames    []string
	}{
		{
			name: "graphemes kept apart that join in part",
			bug: "two graphemes the view keeps apart (with an SGR, say) that the terminal, " +
				"written them together, cuts differently, are written together: \"🇺\" and " +
				"\"🇸🇦\" are two cells to the renderer, \"🇺🇸\" and \"🇦\" to the terminal, and " +
				"the rest of the line is a column off (cells joins only graphemes that make " +
				"one whole)",
			frames: []string{"🇺\x1b[1m🇸🇦\x1b[mab"},
		},
		{
			name: "SGR parameter with a leading zero",
			bug: "sgrState.apply compares parameters as text, so \"01\" is not \"1\": " +
				"\"\\x1b[01;34m\" (as ls and grep write it, LS_COLORS style) draws neither bold " +
				"nor blue; terminals read parameters as numbers",
			frames: []string{"\x1b[01mx", "\x1b[01;034my", "\x1b[038;5;1mz", "\x1b[04mw"},
		},
		{
			name: "SGR ending in an empty parameter",
			bug: "sgrState.apply cuts parameters at \";\" until none are left, so an empty last " +
				"one is never read: \"\\x1b[1;m\" is bold to the renderer, where terminals take " +
				"the empty parameter for 0, a reset",
			frames: []string{"\x1b[1;mx", "\x1b[31m\x1b[4;my"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, p := range testTerms {
				for _, f := range tt.frames {
					c := newScreenCheck(t, p, 10, 2)
					c.frame(f)
				}
			}
		})
	}
}

// TestRendererStyleTableFull: styles are interned in a table for all
// sessions, with a bound; past it, styles are made afresh, which is to
// cost bytes, not correctness. It runs in a process of its own, so that
// the full table does not change what other tests see.
func TestRendererStyleTableFull(t *testing.T) {
	if os.Getenv("TERM_TEST_STYLE_TABLE") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRendererStyleTableFull$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "TERM_TEST_STYLE_TABLE=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return
	}
	var out bytes.Buffer
	r := newRenderer(colorprofile.TrueColor, 10, 1)
	for i := range 20000 {
		out.Reset()
		r.Frame(&out, fmt.Sprintf("\x1b[38;2;%d;%d;%dmx", i&255, i>>8, 7))
	}
	for _, p := range testTerms {
		c := newScreenCheck(t, p, 10, 2)
		c.frame("\x1b[1ma\x1b[1mb\x1b[48;2;9;9;9mc\x1b[48;2;9;9;9md")
		c.frame("\x1b[1ma\x1b[1mB\x1b[48;2;9;9;9mC\x1b[48;2;9;9;9md")
	}
}

func TestRendererRandomFrames(t *testing.T) {
	runs := 150
	if testing.Short() {
		runs = 30
	}
	for _, p := range testTerms {
		t.Run(p.String(), func(t *testing.T) {
			drawn, skipped := 0, make(map[string]int)
			for seed := range uint64(runs) {
				rng := rand.New(rand.NewPCG(seed, uint64(p.profile)))
				g := &genFrame{rng: rng}
				w, h := 1+rng.IntN(30), 1+rng.IntN(8)
				if seed%10 == 0 {
					w, h = 80, 24
				}
				c := newScreenCheck(t, p, w, h)
				view := g.frame(h)
				for range 12 {
					next := view
					switch rng.IntN(10) {
					case 0:
						next = g.frame(h)
					case 1:
						w, h = 1+rng.IntN(30), 1+rng.IntN(8)
						c.resize(w, h)
					default:
						next = g.mutate(view, h)
					}
					if why := vterm.Skip(next); why != "" {
						skipped[why]++
						continue
					}
					view = next
					c.frame(view)
					drawn++
				}
			}
			t.Logf("%d frames drawn; left out for known bugs: %v", drawn, skipped)
			if total := runs * 12; drawn < total/2 {
				t.Errorf("only %d of %d frames drawn, the rest left out for known bugs: %v", drawn, total, skipped)
			}
		})
	}
}

func TestRendererResize(t *testing.T) {
	for _, p := range testTerms {
		t.Run(p.String(), func(t *testing.T) {
			c := newScreenCheck(t, p, 10, 4)
			view := "\x1b[44m2048\x1b[m  字\nscore 12\n\x1b[1mbest\x1b[m 20\nq quit"
			c.frame(view)
			for _, size := range [][2]int{{4, 2}, {20, 10}, {10, 4}, {1, 1}, {3, 5}} {
				// The virtual terminal's screen is garbage after a resize:
				// the frame must draw all of it.
				c.resize(size[0], size[1])
				c.frame(view)
				if out := c.frame(view); len(out) != 0 {
					t.Errorf("after resize to %v: the same frame again writes %q", size, out)
				}
			}
		})
	}
}

// TestRendererTextBuffers: a frame written into a buffer (frameText) is
// drawn as the same frame given as a string, the buffer the renderer held
// before is given back, and a buffer far larger than the renderer's frames
// is not taken for the next.
func TestRendererTextBuffers(t *testing.T) {
	g := &genFrame{rng: rand.New(rand.NewPCG(3, 4))}
	byText, byString := newRenderer(colorprofile.ANSI256, 40, 10), newRenderer(colorprofile.ANSI256, 40, 10)
	last := 0 // the length of the frame before
	for i := range 200 {
		view := g.frame(10)
		text := byText.TakeText()
		if cap(*text) > 2*last+4096 {
			t.Fatalf("frame %d: a buffer of %d bytes taken after a frame of %d", i, cap(*text), last)
		}
		last = len(view)
		*text = append((*text)[:0], view...)
		held := byText.text
		var a, b bytes.Buffer
		byText.FrameText(&a, text)
		byString.Frame(&b, view)
		if a.String() != b.String() {
			t.Fatalf("frame %d: from a buffer %q, from a string %q", i, a.String(), b.String())
		}
		if byText.text != text || held == text {
			t.Fatalf("frame %d: the renderer holds %p, want the frame's buffer %p (held %p before)", i, byText.text, text, held)
		}
		// Another screen's larger window's buffer, given back (and
		// kept: see textList): not taken for this screen's next frame.
		big := make([]byte, 0, maxFreeText)
		viewTexts.Put(&big)
	}
	byText.Forget()
	if byText.text != nil {
		t.Fatal("a forgotten frame's buffer is still held")
	}
}

func TestRendererUnchangedFrameWritesNothing(t *testing.T) {
	g := &genFrame{rng: rand.New(rand.NewPCG(1, 2))}
	for _, p := range testTerms {
		c := newScreenCheck(t, p, 40, 10)
		for range 50 {
			view := g.frame(10)
			if vterm.Skip(view) != "" {
				continue
			}
			c.frame(view)
			if out := c.frame(view); len(out) != 0 {
				t.Fatalf("%v: the same frame twice: the second writes %q\nframe: %q", p, out, view)
			}
		}
	}
}

func TestRendererOneCellChange(t *testing.T) {
	text := lipgloss.NewStyle().Foreground(lipgloss.Color("#776e65"))
	score := lipgloss.NewStyle().Foreground(lipgloss.Color("#f9f6f2")).Bold(true)
	line := func(n string) string {
		return text.Render("  score ") + score.Render("    "+n+" points so far  ") + text.Render("  best 20480  ")
	}
	var lines []string
	for i := range 24 {
		lines = append(lines, text.Render(fmt.Sprintf("line %d of the screen, with some text", i)))
	}
	for _, p := range testTerms {
		t.Run(p.String(), func(t *testing.T) {
			c := newScreenCheck(t, p, 80, 24)
			lines := slices.Clone(lines)
			lines[5] = line("1024")
			c.frame(strings.Join(lines, "\n"))
			lines[5] = line("1028")
			if out := c.frame(strings.Join(lines, "\n")); len(out) >= 40 {
				t.Errorf("one changed character in a styled line writes %d bytes: %q", len(out), out)
			}
			lines[5] = line("1024")
			lines[6] = text.Render("line 6 of the screen, with some texT")
			if out := c.frame(strings.Join(lines, "\n")); len(out) >= 80 {
				t.Errorf("one changed character in each of two lines writes %d bytes: %q", len(out), out)
			}
		})
	}
}

// FuzzRenderer draws two frames from the fuzzer's strings on a screen of
// the fuzzer's size: the output replayed on the virtual terminal must
// show the second frame.
func FuzzRenderer(f *testing.F) {
	tile := lipgloss.NewStyle().Background(lipgloss.Color("#3c3a32")).Foreground(lipgloss.Color("#f9f6f2"))
	f.Add("hello\nworld", "help\nworld", uint8(10), uint8(3), uint8(0))
	f.Add(tile.Render("2048")+" 字\n"+tile.Render("4"), tile.Render("2049")+" 🙂\n", uint8(8), uint8(2), uint8(1))
	f.Add("\x1b[38;2;1;2;3;48;2;4;5;6mab\x1b[0m cd   ", "\x1b[1mab\x1b[22mcd\x1b[4mef", uint8(5), uint8(1), uint8(2))
	f.Add("字字字\n\n\nabc", "a字字b\nx", uint8(5), uint8(2), uint8(3))
	f.Add("\x1b[41m   \x1b[m\nline", "\x1b[31m   \x1b[m\n\x1b[7m \x1b[27m", uint8(4), uint8(4), uint8(4))
	f.Fuzz(func(t *testing.T, a, b string, w, h, prof uint8) {
		p := testTerms[int(prof)%len(testTerms)]
		for _, v := range []string{a, b} {
			if why := vterm.Skip(v); why != "" {
				t.Skip(why)
			}
		}
		c := newScreenCheck(t, p, 1+int(w)%100, 1+int(h)%30)
		c.frame(a)
		c.frame(b)
		if out := c.frame(b); len(out) != 0 {
			t.Fatalf("the same frame again writes %q", out)
		}
	})
}

// benchBoard is an 80×24 frame like the game's: a title, a 4×4 board of
// coloured tiles, a score and a help line.
func benchBoard(values [16]int) string {
	colours := map[int]string{
		0: "#cdc1b4", 2: "#eee4da", 4: "#ede0c8", 8: "#f2b179", 16: "#f59563", 32: "#f67c5f",
		64: "#f65e3b", 128: "#edcf72", 256: "#edcc61", 512: "#edc850", 1024: "#edc53f", 2048: "#edc22e",
	}
	var rows []string
	for r := range 4 {
		var tiles []string
		for c := range 4 {
			v := values[r*4+c]
			st := lipgloss.NewStyle().Width(8).Height(3).Align(lipgloss.Center, lipgloss.Center).
				Background(lipgloss.Color(colours[v])).Foreground(lipgloss.Color("#776e65")).Bold(true).
				MarginRight(1).MarginBackground(lipgloss.Color("#bbada0"))
			label := ""
			if v != 0 {
				label = strconv.Itoa(v)
			}
			tiles = append(tiles, st.Render(label))
		}
		rows = append(rows, lipgloss.JoinHorizontal(lipgloss.Top, tiles...))
	}
	board := lipgloss.NewStyle().Padding(1, 1, 0, 2).Background(lipgloss.Color("#bbada0")).
		Render(lipgloss.JoinVertical(lipgloss.Left, rows...))
	sum := 0
	for _, v := range values {
		sum += v
	}
	title := lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("#776e65")).Render("2048")
	score := lipgloss.NewStyle().Foreground(lipgloss.Color("241")).Render(fmt.Sprintf("score %6d   best %6d", sum*4, 20480))
	help := lipgloss.NewStyle().Faint(true).Render("←↑↓→ move • u undo • n new game • q quit")
	return lipgloss.Place(80, 24, lipgloss.Center, lipgloss.Center,
		lipgloss.JoinVertical(lipgloss.Center, title+"   "+score, "", board, "", help))
}

func BenchmarkFrame(b *testing.B) {
	boards := []string{
		benchBoard([16]int{2, 0, 0, 4, 0, 8, 16, 0, 2, 2, 0, 0, 1024, 512, 64, 2}),
		benchBoard([16]int{2, 4, 0, 0, 8, 16, 0, 0, 4, 0, 0, 0, 1024, 512, 64, 4}),
	}
	for _, p := range []colorprofile.Profile{colorprofile.TrueColor, colorprofile.ANSI256} {
		b.Run(p.String(), func(b *testing.B) {
			r := newRenderer(p, 80, 24)
			var out bytes.Buffer
			r.Frame(&out, boards[0])
			total := 0
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				out.Reset()
				r.Frame(&out, boards[(i+1)%2])
				total += out.Len()
			}
			b.ReportMetric(float64(total)/float64(b.N), "bytes/frame")
		})
	}
}

// TestMoveCost: the cost the renderer orders its writes by is the length
// of the move it then writes.
func TestMoveCost(t *testing.T) {
	for _, lf := range []bool{false, true} {
		r := newRenderer(colorprofile.TrueColor, 120, 40)
		r.lf = lf
		vt := vterm.New(120, 40)
		vt.ONLCR = !lf
		for _, from := range [][2]int{{-1, 5}, {0, 0}, {7, 3}, {119, 39}, {10, 10}, {99, 9}} {
			for y := range 40 {
				for x := range 120 {
					r.x, r.y = from[0], from[1]
					var b bytes.Buffer
					r.moveTo(&b, x, y)
					r.x, r.y = from[0], from[1]
					if got := r.moveCost(x, y); got != b.Len() {
						t.Fatalf("lf %v, from %v to %d,%d: moveCost %d, moveTo writes %q", lf, from, x, y, got, b.String())
					}
					if from[0] < 0 {
						continue
					}
					// The move lands where it says, on a terminal that
					// takes line feeds as the renderer was told.
					vt.Place(from[0], from[1])
					err := vt.Apply(b.Bytes())
					if gx, gy := vt.Cursor(); err != nil || gx != x || gy != y {
						t.Fatalf("lf %v, from %v to %d,%d: %q lands on %d,%d (%v)", lf, from, x, y, b.String(), gx, gy, err)
					}
				}
			}
		}
	}
	// The shortest moves by control characters, where they do not scroll.
	r := newRenderer(colorprofile.TrueColor, 80, 24)
	r.lf = true
	for _, tt := range []struct {
		from, to [2]int
		want     string
	}{
		{[2]int{5, 5}, [2]int{5, 6}, "\n"},
		{[2]int{5, 5}, [2]int{5, 8}, "\n\n\n"},
		{[2]int{5, 5}, [2]int{5, 9}, "\x1b[4B"},
		{[2]int{5, 5}, [2]int{5, 4}, "\x1bM"},
		{[2]int{5, 5}, [2]int{2, 5}, "\b\b\b"},
		{[2]int{5, 5}, [2]int{1, 5}, "\x1b[4D"},
		{[2]int{5, 5}, [2]int{3, 6}, "\n\b\b"},
		{[2]int{5, 1}, [2]int{5, 0}, "\x1bM"},
	} {
		r.x, r.y = tt.from[0], tt.from[1]
		if got := string(r.move(nil, tt.to[0], tt.to[1])); got != tt.want {
			t.Errorf("from %v to %v: %q, want %q", tt.from, tt.to, got, tt.want)
		}
	}
	if asciiText('~') != "~" || asciiText(' ') != " " || asciiText('\\') != "\\" {
		t.Fatal("asciiText")
	}
	for c := byte(' '); c < 0x7f; c++ {
		if asciiText(c) != string(rune(c)) {
			t.Fatalf("asciiText(%q) = %q", c, asciiText(c))
		}
	}
}

func TestTextEnd(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			switch rng.IntN(8) {
			case 0:
				b[i] = byte(rng.IntN(256))
			case 1:
				b[i] = []byte{0x1f, 0x20, 0x7e, 0x7f, 0x80, 0xff, 0x1b}[rng.IntN(7)]
			default:
				b[i] = byte(0x20 + rng.IntN(0x5f))
			}
		}
		s := string(b)
		from := rng.IntN(len(s) + 1)
		limit := from + rng.IntN(len(s)-from+1)
		want := from
		for want < limit && s[want] >= 0x20 && s[want] < 0x7f {
			want++
		}
		if got := textEnd(s, from, limit); got != want {
			t.Fatalf("textEnd(%q, %d, %d) = %d, want %d", s, from, limit, got, want)
		}
		o := []byte(s)
		if len(o) > 0 && rng.IntN(2) == 0 {
			o[rng.IntN(len(o))] ^= byte(1 + rng.IntN(255))
		}
		want = 0
		for want < len(s) && want < len(o) && s[want] == o[want] {
			want++
		}
		if got := commonPrefix(s, string(o)); got != want {
			t.Fatalf("commonPrefix(%q, %q) = %d, want %d", s, o, got, want)
		}
	}
}

// TestSGREnd: sgrEnd takes parameters of digits, ':' and ';' only, up to
// the m that ends them, for every byte that may follow CSI.
func TestSGREnd(t *testing.T) {
	ref := func(s string, i int) int {
		if i+1 >= len(s) || s[i+1] != '[' {
			return -1
		}
		for j := i + 2; j < len(s); j++ {
			switch c := s[j]; {
			case c >= '0' && c <= '9', c == ';', c == ':':
			case c == 'm':
				return j + 1
			default:
				return -1
			}
		}
		return -1
	}
	for c := range 256 {
		for _, s := range []string{"\x1b[" + string(rune(c)) + "m", "\x1b[1;" + string([]byte{byte(c)}) + "m", "\x1b[38:5" + string([]byte{byte(c)}), "x\x1b" + string([]byte{byte(c)}) + "1m"} {
			i := strings.IndexByte(s, 0x1b)
			if got, want := sgrEnd(s, i), ref(s, i); got != want {
				t.Fatalf("sgrEnd(%q, %d) = %d, want %d", s, i, got, want)
			}
		}
	}
}

// TestWithin: within counts the segments left below the lookahead's limit.
func TestWithin(t *testing.T) {
	for _, tt := range []struct {
		left  []int32
		limit int
		want  int
	}{
		{nil, 64, 0},
		{[]int32{0, 3, 9}, 64, 3},
		{[]int32{0, 3, 9}, 9, 2},
		{[]int32{0, 3, 9}, 10, 3},
		{[]int32{5, 70, 80}, 69, 1},
		{[]int32{64, 65}, 64, 0},
	} {
		if got := within(tt.left, tt.limit); got != tt.want {
			t.Errorf("within(%v, %d) = %d, want %d", tt.left, tt.limit, got, tt.want)
		}
	}
}

// The buffers no screen holds are kept up to maxFreeTexts, none larger
// than maxFreeText: screens that give many back at once (a race's start)
// leave the rest to the collector.
func TestTextListBounded(t *testing.T) {
	var l textList
	for range maxFreeTexts + 10 {
		b := make([]byte, 0, 5000)
		l.Put(&b)
	}
	big := make([]byte, 0, maxFreeText+1)
	l.Put(&big)
	if len(l.free) != maxFreeTexts {
		t.Errorf("%d buffers kept, want %d", len(l.free), maxFreeTexts)
	}
	for range maxFreeTexts {
		if b := l.Get(); cap(*b) != 5000 {
			t.Fatalf("got a buffer of %d bytes, want one of those given back", cap(*b))
		}
	}
	if b := l.Get(); b == nil || cap(*b) != 0 {
		t.Errorf("with none kept, Get returned %v, want a new empty buffer", b)
	}
}
