package draw

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/ssh2048/ssh2048/engine"
)

// Pane is what the screens that show a game without playing it (watch,
// TV, replay, history) share with the game screen: the window, the
// colours, and the board drawn at the largest tile size that fits.
type Pane struct {
	Width, Height int
	Profile       colorprofile.Profile
	Light         bool  // the terminal answered that its background is light
	Theme         Theme // the player's tile colours
	Styles        *Styles
	Inks          struct{ Title, Label, Value, Gain Ink }
	cache         *BoardCache
}

func NewPane(width, height int, p colorprofile.Profile, light bool) Pane {
	return NewThemedPane(width, height, p, light, ThemeDefault)
}

// NewThemedPane is NewPane with the tiles in theme th.
func NewThemedPane(width, height int, p colorprofile.Profile, light bool, th Theme) Pane {
	if p == colorprofile.Unknown {
		p = colorprofile.TrueColor
	}
	pn := Pane{Width: max(width, 1), Height: max(height, 1), Light: light, Theme: th}
	pn.SetProfile(p)
	return pn
}

func (p *Pane) SetProfile(pr colorprofile.Profile) {
	p.Profile = pr
	p.Styles = ThemedStyles(p.Theme, pr, !p.Light)
	p.Inks.Title, p.Inks.Label = InkOf(p.Styles.Title), InkOf(p.Styles.Label)
	p.Inks.Value, p.Inks.Gain = InkOf(p.Styles.Value), InkOf(p.Styles.Gain)
	p.cache = nil
}

// Terminal takes what a message says of the terminal: its size, colour
// profile or background.
func (p *Pane) Terminal(msg tea.Msg) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		p.Width, p.Height = max(msg.Width, 1), max(msg.Height, 1)
		p.cache = nil
	case tea.ColorProfileMsg:
		p.SetProfile(msg.Profile)
	case tea.BackgroundColorMsg:
		p.Light = !msg.IsDark()
		p.SetProfile(p.Profile)
	}
}

// IsTerminal reports whether msg is about the terminal rather than for a
// screen: every screen open takes those.
func IsTerminal(msg tea.Msg) bool {
	switch msg.(type) {
	case tea.WindowSizeMsg, tea.ColorProfileMsg, tea.BackgroundColorMsg:
		return true
	}
	return false
}

// Board draws b with the largest tiles that leave room for chromeLines
// lines besides it; not ok when even the smallest do not fit.
func (p *Pane) Board(b *engine.Board, ms *Marks, chromeLines int) ([]Line, bool) {
	n := b.Size()
	t, ok := pickTierFor(n, p.Width, p.Height-chromeLines)
	if !ok {
		return nil, false
	}
	if p.cache == nil || p.cache.Tier != t || p.cache.N != n {
		p.cache = SharedBoardCache(p.Styles, t, n) // drawn once for every session
	}
	bw, _ := t.BoardSize(n)
	rows := p.cache.Lines(b, ms)
	out := make([]Line, len(rows))
	for i, s := range rows {
		out[i] = Line{s, bw}
	}
	return out, true
}

// pickTierFor returns the largest tile size whose n×n board fits width
// by height cells.
func pickTierFor(n, width, height int) (Tier, bool) {
	for i := len(Tiers) - 1; i >= 0; i-- {
		if w, h := Tiers[i].BoardSize(n); w <= width && h <= height {
			return Tiers[i], true
		}
	}
	return Tier{}, false
}

// TooSmall says how large the window must be for an n×n board and
// chromeLines lines more, and keeps quit in sight.
func (p *Pane) TooSmall(n, chromeLines int, quit key.Binding) string {
	w, h := Tiers[0].BoardSize(n)
	return p.Centred("Window too small\nneed " + strconv.Itoa(w) + "×" + strconv.Itoa(h+chromeLines) + ", is " +
		strconv.Itoa(p.Width) + "×" + strconv.Itoa(p.Height) + "\n" + p.Hints(quit))
}

// Centred places text in the middle of the window, wrapped to its width.
func (p *Pane) Centred(s string) string {
	body := lipgloss.NewStyle().Width(max(p.Width, 10)).Align(lipgloss.Center).Render(s)
	return lipgloss.Place(p.Width, p.Height, lipgloss.Center, lipgloss.Center, body)
}

// Fit cuts a one-line text to the window.
func (p *Pane) Fit(s string) string { return FitWidth(s, p.Width) }

// FitWidth cuts a one-line text to width cells.
func FitWidth(s string, width int) string {
	if ansi.StringWidth(s) <= width {
		return s
	}
	return ansi.Truncate(s, width, "…")
}

// TextLine is s cut to the window, with its width.
func (p *Pane) TextLine(s string) Line {
	s = p.Fit(s)
	return Line{s, ansi.StringWidth(s)}
}

// Hints renders bindings as "space play · q quit".
func (p *Pane) Hints(bs ...key.Binding) string { return HintsIn(p.Styles, bs...) }

// HintsIn renders bindings as "c keep going · n new game" in styles s.
func HintsIn(s *Styles, bs ...key.Binding) string {
	parts := make([]string, 0, len(bs))
	for _, b := range bs {
		if b.Enabled() {
			parts = append(parts, s.Help.ShortKey.Render(b.Help().Key)+" "+s.Help.ShortDesc.Render(b.Help().Desc))
		}
	}
	return strings.Join(parts, s.Dim.Render(" · "))
}

// KeyLine is the key line of bindings that fits the window, dropping keys
// in dropOrder until it does.
func (p *Pane) KeyLine(bindings []key.Binding, dropOrder []int) Line {
	return p.TextLine(KeysThatFit(p.Styles, bindings, dropOrder, p.Width))
}

// KeysThatFit renders the enabled bindings as HintsIn does, leaving out
// those of dropOrder, in that order, until the line is no wider than
// width (or none is left to drop).
func KeysThatFit(s *Styles, bindings []key.Binding, dropOrder []int, width int) string {
	shown := make([]bool, len(bindings))
	for i, b := range bindings {
		shown[i] = b.Enabled()
	}
	render := func() string {
		var on []key.Binding
		for i, b := range bindings {
			if shown[i] {
				on = append(on, b)
			}
		}
		return HintsIn(s, on...)
	}
	line := render()
	for _, i := range dropOrder {
		if ansi.StringWidth(line) <= width {
			break
		}
		shown[i] = false
		line = render()
	}
	return line
}

// Fields joins header fields gap apart, on one line if the window is
// wide enough, else as few lines as fit, each cut to the window. The
// fields come with their widths, known as they were built: measuring
// styled text is the slowest part of a frame.
func (p *Pane) Fields(gap string, fs ...Line) []Line {
	var out []Line
	var cur strings.Builder
	curW := 0
	flush := func() {
		if curW > p.Width {
			out = append(out, p.TextLine(cur.String()))
		} else {
			out = append(out, Line{cur.String(), curW})
		}
		cur.Reset()
		curW = 0
	}
	for _, f := range fs {
		if f.W == 0 {
			continue
		}
		if curW > 0 && curW+len(gap)+f.W > p.Width {
			flush()
		}
		if curW > 0 {
			cur.WriteString(gap)
			curW += len(gap)
		}
		cur.WriteString(f.S)
		curW += f.W
	}
	if curW > 0 {
		flush()
	}
	return out
}

// Label is "Score 1234" in the header's colours, with its width.
func (p *Pane) Label(name, value string) Line {
	var sb strings.Builder
	w := p.Inks.Label.Text(&sb, name+" ")
	w += p.Inks.Value.Text(&sb, value)
	return Line{sb.String(), w}
}

// gainRoom is the room the header keeps for a move's points ("+2048"),
// whether there are any or not: a header whose width changed with every
// move would move the whole frame, centred on it, and redraw it all.
const gainRoom = 6

// Score is "Score 1234 +32", the points padded to gainRoom.
func (p *Pane) Score(score, gain int) Line {
	var sb strings.Builder
	w := p.Inks.Label.Text(&sb, "Score ")
	w += p.Inks.Value.Text(&sb, strconv.Itoa(score))
	g := ""
	if gain > 0 {
		g = "+" + strconv.Itoa(gain)
	}
	sb.WriteByte(' ')
	w += 1 + p.Inks.Gain.Text(&sb, g+Spaces[:max(gainRoom-len(g), 0)])
	return Line{sb.String(), w}
}

// CachedLine is a line drawn once for a text and a window, until either
// changes: the key line and the notice of a screen drawn on every move.
type CachedLine struct {
	key   string
	width int
	p     *Styles
	l     Line
}

// Get returns the line for key, drawing it with draw when key, the width
// or the styles changed.
func (c *CachedLine) Get(p *Pane, key string, draw func() Line) Line {
	if c.key != key || c.width != p.Width || c.p != p.Styles || (c.l.S == "" && key != "") {
		c.key, c.width, c.p, c.l = key, p.Width, p.Styles, draw()
	}
	return c.l
}

// WrappedLines is text wrapped by words to width cells, each line drawn
// by render when it is not nil: styled after wrapping, so that every line
// carries its own escape codes.
func WrappedLines(text string, width int, render func(...string) string) []string {
	if text == "" {
		return nil
	}
	lines := strings.Split(WrapWords(text, max(width, 1)), "\n")
	if render != nil {
		for i, l := range lines {
			lines[i] = render(l)
		}
	}
	return lines
}

// FinalText is a session's last line wrapped by words to the window.
func FinalText(s string, width int) string {
	lines := strings.Split(ansi.Wrap(s, max(width, 10), ""), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// MoveMarks are the marks of the move that led from before to after in
// direction d, the tile it added at spawn: what the player saw after
// that move.
func MoveMarks(before engine.Board, d engine.Direction, spawn engine.Spawn) Marks {
	return Marks{On: true, Spawn: spawn, Merged: before.Merges(d)}
}
