// Temporary: the race screens' copy of what tui/draw draws with, until they move to a
// package of their own and draw with tui/draw.

package tui

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

// pane is what the screens that show a game without playing it (watch,
// TV, replay, history) share with the game screen: the window, the
// colours, and the board drawn at the largest tile size that fits.
type pane struct {
	width, height int
	profile       colorprofile.Profile
	light         bool // the terminal answered that its background is light
	styles        *Styles
	inks          struct{ title, label, value, gain ink }
	cache         *boardCache
}

func newPane(width, height int, p colorprofile.Profile, light bool) pane {
	if p == colorprofile.Unknown {
		p = colorprofile.TrueColor
	}
	pn := pane{width: max(width, 1), height: max(height, 1), light: light}
	pn.setProfile(p)
	return pn
}

func (p *pane) setProfile(pr colorprofile.Profile) {
	p.profile = pr
	p.styles = sharedStyles(pr, !p.light)
	p.inks.title, p.inks.label = inkOf(p.styles.Title), inkOf(p.styles.Label)
	p.inks.value, p.inks.gain = inkOf(p.styles.Value), inkOf(p.styles.Gain)
	p.cache = nil
}

// terminal takes what a message says of the terminal: its size, colour
// profile or background.
func (p *pane) terminal(msg tea.Msg) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		p.width, p.height = max(msg.Width, 1), max(msg.Height, 1)
		p.cache = nil
	case tea.ColorProfileMsg:
		p.setProfile(msg.Profile)
	case tea.BackgroundColorMsg:
		p.light = !msg.IsDark()
		p.setProfile(p.profile)
	}
}

// isTerminal reports whether msg is about the terminal rather than for a
// screen: every screen open takes those.
func isTerminal(msg tea.Msg) bool {
	switch msg.(type) {
	case tea.WindowSizeMsg, tea.ColorProfileMsg, tea.BackgroundColorMsg:
		return true
	}
	return false
}

// board draws b with the largest tiles that leave room for chromeLines
// lines besides it; not ok when even the smallest do not fit.
func (p *pane) board(b *engine.Board, ms *marks, chromeLines int) ([]line, bool) {
	n := b.Size()
	t, ok := pickTierFor(n, p.width, p.height-chromeLines)
	if !ok {
		return nil, false
	}
	if p.cache == nil || p.cache.t != t || p.cache.n != n {
		p.cache = sharedBoardCache(p.styles, t, n) // drawn once for every session
	}
	bw, _ := t.boardSize(n)
	rows := p.cache.lines(b, ms)
	out := make([]line, len(rows))
	for i, s := range rows {
		out[i] = line{s, bw}
	}
	return out, true
}

// pickTierFor returns the largest tile size whose n×n board fits width
// by height cells.
func pickTierFor(n, width, height int) (tier, bool) {
	for i := len(tiers) - 1; i >= 0; i-- {
		if w, h := tiers[i].boardSize(n); w <= width && h <= height {
			return tiers[i], true
		}
	}
	return tier{}, false
}

// tooSmall says how large the window must be for an n×n board and
// chromeLines lines more, and keeps quit in sight.
func (p *pane) tooSmall(n, chromeLines int, quit key.Binding) string {
	w, h := tiers[0].boardSize(n)
	return p.centred("Window too small\nneed " + strconv.Itoa(w) + "×" + strconv.Itoa(h+chromeLines) + ", is " +
		strconv.Itoa(p.width) + "×" + strconv.Itoa(p.height) + "\n" + p.hints(quit))
}

// centred places text in the middle of the window, wrapped to its width.
func (p *pane) centred(s string) string {
	body := lipgloss.NewStyle().Width(max(p.width, 10)).Align(lipgloss.Center).Render(s)
	return lipgloss.Place(p.width, p.height, lipgloss.Center, lipgloss.Center, body)
}

// fit cuts a one-line text to the window.
func (p *pane) fit(s string) string { return fitWidth(s, p.width) }

// fitWidth cuts a one-line text to width cells.
func fitWidth(s string, width int) string {
	if ansi.StringWidth(s) <= width {
		return s
	}
	return ansi.Truncate(s, width, "…")
}

// textLine is s cut to the window, with its width.
func (p *pane) textLine(s string) line {
	s = p.fit(s)
	return line{s, ansi.StringWidth(s)}
}

// hints renders bindings as "space play · q quit".
func (p *pane) hints(bs ...key.Binding) string { return hintsIn(p.styles, bs...) }

// hintsIn renders bindings as "c keep going · n new game" in styles s.
func hintsIn(s *Styles, bs ...key.Binding) string {
	parts := make([]string, 0, len(bs))
	for _, b := range bs {
		if b.Enabled() {
			parts = append(parts, s.Help.ShortKey.Render(b.Help().Key)+" "+s.Help.ShortDesc.Render(b.Help().Desc))
		}
	}
	return strings.Join(parts, s.Dim.Render(" · "))
}

// keyLine is the key line of bindings that fits the window, dropping keys
// in dropOrder until it does.
func (p *pane) keyLine(bindings []key.Binding, dropOrder []int) line {
	return p.textLine(keysThatFit(p.styles, bindings, dropOrder, p.width))
}

// keysThatFit renders the enabled bindings as hintsIn does, leaving out
// those of dropOrder, in that order, until the line is no wider than
// width (or none is left to drop).
func keysThatFit(s *Styles, bindings []key.Binding, dropOrder []int, width int) string {
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
		return hintsIn(s, on...)
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

// fields joins header fields gap apart, on one line if the window is
// wide enough, else as few lines as fit, each cut to the window. The
// fields come with their widths, known as they were built: measuring
// styled text is the slowest part of a frame.
func (p *pane) fields(gap string, fs ...line) []line {
	var out []line
	var cur strings.Builder
	curW := 0
	flush := func() {
		if curW > p.width {
			out = append(out, p.textLine(cur.String()))
		} else {
			out = append(out, line{cur.String(), curW})
		}
		cur.Reset()
		curW = 0
	}
	for _, f := range fs {
		if f.w == 0 {
			continue
		}
		if curW > 0 && curW+len(gap)+f.w > p.width {
			flush()
		}
		if curW > 0 {
			cur.WriteString(gap)
			curW += len(gap)
		}
		cur.WriteString(f.s)
		curW += f.w
	}
	if curW > 0 {
		flush()
	}
	return out
}

// label is "Score 1234" in the header's colours, with its width.
func (p *pane) label(name, value string) line {
	var sb strings.Builder
	w := p.inks.label.text(&sb, name+" ")
	w += p.inks.value.text(&sb, value)
	return line{sb.String(), w}
}

// gainRoom is the room the header keeps for a move's points ("+2048"),
// whether there are any or not: a header whose width changed with every
// move would move the whole frame, centred on it, and redraw it all.
const gainRoom = 6

// score is "Score 1234 +32", the points padded to gainRoom.
func (p *pane) score(score, gain int) line {
	var sb strings.Builder
	w := p.inks.label.text(&sb, "Score ")
	w += p.inks.value.text(&sb, strconv.Itoa(score))
	g := ""
	if gain > 0 {
		g = "+" + strconv.Itoa(gain)
	}
	sb.WriteByte(' ')
	w += 1 + p.inks.gain.text(&sb, g+spaces[:max(gainRoom-len(g), 0)])
	return line{sb.String(), w}
}

// cachedLine is a line drawn once for a text and a window, until either
// changes: the key line and the notice of a screen drawn on every move.
type cachedLine struct {
	key   string
	width int
	p     *Styles
	l     line
}

// get returns the line for key, drawing it with draw when key, the width
// or the styles changed.
func (c *cachedLine) get(p *pane, key string, draw func() line) line {
	if c.key != key || c.width != p.width || c.p != p.styles || (c.l.s == "" && key != "") {
		c.key, c.width, c.p, c.l = key, p.width, p.styles, draw()
	}
	return c.l
}

// wrappedLines is text wrapped by words to width cells, each line drawn
// by render when it is not nil: styled after wrapping, so that every line
// carries its own escape codes.
func wrappedLines(text string, width int, render func(...string) string) []string {
	if text == "" {
		return nil
	}
	lines := strings.Split(wrapWords(text, max(width, 1)), "\n")
	if render != nil {
		for i, l := range lines {
			lines[i] = render(l)
		}
	}
	return lines
}

// finalText is a session's last line wrapped by words to the window.
func finalText(s string, width int) string {
	lines := strings.Split(ansi.Wrap(s, max(width, 10), ""), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// moveMarks are the marks of the move that led from before to after in
// direction d, the tile it added at spawn: what the player saw after
// that move.
func moveMarks(before engine.Board, d engine.Direction, spawn engine.Spawn) marks {
	return marks{on: true, spawn: spawn, merged: before.Merges(d)}
}

// directionOf finds the move that led from before to after, adding the
// tile spawn: ok is false when no single move does (the boards are more
// than one move apart).
func directionOf(before, after engine.Board, spawn engine.Spawn) (engine.Direction, bool) {
	for _, d := range engine.Directions() {
		slid := before
		if _, moved := slid.Move(d); !moved || slid.At(spawn.Row, spawn.Col) != 0 {
			continue
		}
		slid.Set(spawn.Row, spawn.Col, spawn.Exp)
		if slid == after {
			return d, true
		}
	}
	return 0, false
}
