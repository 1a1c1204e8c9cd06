package tui

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ssh2048/ssh2048/engine"
)

// View draws the current screen. Once the session is ending it leaves the
// alternate screen and prints only the last line, so that line stays in the
// player's terminal after the connection closes.
func (m *Model) View() tea.View {
	if m.final != "" {
		return tea.NewView(m.final + "\n")
	}
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.WindowTitle = "2048"
	if m.opts.Player != "" && !m.opts.Guest {
		v.WindowTitle = "2048 · " + m.opts.Player
	}
	return v
}

func (m *Model) render() string {
	var body string
	switch {
	case !m.loaded:
		body = "Loading your game…"
	case m.game == nil:
		body = m.wrap(m.styles.Error.Render(capitalise(m.loadErr.Error())) + "\n\nPress q to quit and try again later.")
	case m.screen == screenHelp:
		body = m.helpScreen()
	case m.screen == screenLeaderboard:
		body = m.leaderboardScreen()
	default:
		if lines, ok := m.gameLines(); ok {
			return centreLines(lines, m.width, m.height)
		}
		body = m.tooSmall()
	}
	return lipgloss.Place(m.width, m.height, lipgloss.Center, lipgloss.Center, body)
}

// wrap fits text to the window width.
func (m *Model) wrap(s string) string {
	return lipgloss.NewStyle().Width(max(m.width, 10)).Align(lipgloss.Center).Render(s)
}

// line is one line of a frame and its width in cells, known as it is
// built: measuring styled text is the slowest part of drawing.
type line struct {
	s string
	w int
}

const spaces = "                                                                                                                                "

// pad writes n spaces.
func pad(sb *strings.Builder, n int) {
	for n > 0 {
		k := min(n, len(spaces))
		sb.WriteString(spaces[:k])
		n -= k
	}
}

// centreLines places lines in the middle of a width×height window, each
// line centred on its own. The renderer clears what the frame leaves out,
// so there is no padding on the right or below.
func centreLines(lines []line, width, height int) string {
	blockW, size := 0, 0
	for _, l := range lines {
		blockW = max(blockW, l.w)
		size += len(l.s) + 1
	}
	top := max(0, (height-len(lines))/2)
	left := max(0, (width-blockW)/2)
	var sb strings.Builder
	sb.Grow(top + size + len(lines)*left + blockW)
	for range top {
		sb.WriteByte('\n')
	}
	for i, l := range lines {
		pad(&sb, left+(blockW-l.w)/2)
		sb.WriteString(l.s)
		if i < len(lines)-1 {
			sb.WriteByte('\n')
		}
	}
	return sb.String()
}

// chrome is how many lines the game screen has besides the board: the
// header, the status line and the help line.
func chrome(headerLines int) int { return headerLines + 2 }

// gameLines is the header, the board (with a dialog over it on the win,
// game-over and confirm screens), the status line and the help line; not
// ok when the window is too small for the board.
func (m *Model) gameLines() ([]line, bool) {
	header := m.header()
	n := m.size
	t, ok := m.pickTier(n, len(header))
	if !ok {
		return nil, false
	}
	if m.cache == nil || m.cache.t != t || m.cache.n != n {
		m.cache = newBoardCache(m.styles, t, n)
	}
	b := m.game.Board()
	board := m.cache.lines(&b)
	bw, _ := t.boardSize(n)
	lines := make([]line, 0, len(header)+len(board)+2)
	lines = append(lines, header...)
	if d := m.dialog(); d != "" {
		for _, s := range m.cache.overlay(board, m.styles.Dialog.Render(d)) {
			lines = append(lines, line{s, max(bw, lipgloss.Width(s))})
		}
	} else {
		for _, s := range board {
			lines = append(lines, line{s, bw})
		}
	}
	status := line{}
	if m.notice != "" {
		st := m.notice
		if m.noticeErr {
			st = m.styles.Error.Render(st)
		}
		status.s = m.fit(st)
		status.w = lipgloss.Width(status.s)
	}
	return append(lines, status, m.helpLine()), true
}

func (m *Model) tooSmall() string {
	minW, minH := tiers[0].boardSize(m.size)
	minH += chrome(2)
	return m.wrap(fmt.Sprintf("Window too small\nneed %d×%d, is %d×%d\n3-8 size · q quit",
		minW, minH, m.width, m.height))
}

// helpModel draws help from the key map. It is made when help is drawn,
// rarely, rather than kept by every session.
func (m *Model) helpModel() help.Model {
	h := help.New()
	h.Styles = m.styles.Help
	h.SetWidth(m.width)
	return h
}

// helpLine is the one-line help under the board, drawn once per window
// width and colour profile.
func (m *Model) helpLine() line {
	if m.shortHelp.s == "" {
		h := m.helpModel()
		s := m.fit(h.ShortHelpView(m.keys.ShortHelp()))
		m.shortHelp = line{s, lipgloss.Width(s)}
	}
	return m.shortHelp
}

// fits reports whether the board can be drawn at all in the window.
func (m *Model) fits() bool {
	_, ok := m.pickTier(m.size, len(m.header()))
	return ok
}

// pickTier returns the largest tile size whose board fits the window.
func (m *Model) pickTier(n, headerLines int) (tier, bool) {
	for i := len(tiers) - 1; i >= 0; i-- {
		w, h := tiers[i].boardSize(n)
		if w <= m.width && h+chrome(headerLines) <= m.height {
			return tiers[i], true
		}
	}
	return tier{}, false
}

// fit cuts a one-line message to the window width, so that the layout
// never gains a line (bubbles/help does not always truncate either).
func (m *Model) fit(s string) string {
	if lipgloss.Width(s) <= m.width {
		return s
	}
	return ansi.Truncate(s, m.width, "…")
}

// ink is a style reduced to the escape codes around its text, so that the
// header, drawn every frame, costs concatenation only. It holds for styles
// without padding, borders or width, which is all the header uses.
type ink struct{ pre, post string }

func inkOf(st lipgloss.Style) ink {
	s := st.Render("x")
	i := strings.IndexByte(s, 'x')
	return ink{s[:i], s[i+1:]}
}

// text appends s in this ink and returns its width: s must be one cell per
// rune.
func (k ink) text(sb *strings.Builder, s string) int {
	sb.WriteString(k.pre)
	sb.WriteString(s)
	sb.WriteString(k.post)
	return utf8.RuneCountInString(s)
}

// header is "2048 4×4   Score 1234 +32      Best 5000   Rank #12   Moves 321",
// on two lines when the window is narrow.
func (m *Model) header() []line {
	k := &m.inks
	var a, b strings.Builder
	w1 := k.title.text(&a, "2048") + 1
	a.WriteByte(' ')
	w1 += k.label.text(&a, strconv.Itoa(m.size)+"×"+strconv.Itoa(m.size)) + 3
	a.WriteString("   ")
	w1 += k.label.text(&a, "Score ")
	w1 += k.value.text(&a, strconv.Itoa(m.game.Score())) + 1
	a.WriteByte(' ')
	gain := ""
	if m.lastGain > 0 {
		gain = "+" + strconv.Itoa(m.lastGain)
	}
	// The gain keeps its room when empty, so the line does not jump.
	w1 += k.gain.text(&a, fmt.Sprintf("%-7s", gain))
	rank := "–"
	switch {
	case m.opts.Guest:
		rank = "guest"
	case m.me != nil && m.standingsFor == m.size:
		rank = "#" + strconv.Itoa(m.me.Rank)
	}
	w2 := k.label.text(&b, "Best ")
	w2 += k.value.text(&b, strconv.Itoa(m.best())) + 3
	b.WriteString("   ")
	w2 += k.label.text(&b, "Rank ")
	w2 += k.value.text(&b, rank) + 3
	b.WriteString("   ")
	w2 += k.label.text(&b, "Moves ")
	w2 += k.value.text(&b, strconv.Itoa(m.game.Moves()))
	if w1+w2 <= m.width {
		return []line{{a.String() + b.String(), w1 + w2}}
	}
	return []line{{a.String(), w1}, {b.String(), w2}}
}

// dialog is the text of the box drawn over the board, if any.
func (m *Model) dialog() string {
	s := m.styles
	switch m.screen {
	case screenConfirmNew:
		return s.Heading.Render("Start a new game?") + "\n" +
			"This one ends; its score still counts.\n\n" +
			m.hints(m.keys.Yes, m.keys.No)
	case screenWon:
		return s.Title.Render("You made "+strconv.Itoa(engine.Value(engine.WinExponent(m.size)))+"!") + "\n" +
			m.summary(false) + "\n\n" +
			m.hints(m.keys.KeepGoing, m.keys.New)
	case screenOver:
		return s.Heading.Render("Game over") + "\n" +
			m.summary(true) + "\n\n" +
			m.hints(m.keys.New, m.keys.Leaderboard, m.keys.Quit)
	}
	return ""
}

// summary is the score line of the win and game-over dialogs.
func (m *Model) summary(withRank bool) string {
	s := m.styles
	line := s.Label.Render("Score ") + s.Value.Render(strconv.Itoa(m.game.Score())) + "   " +
		s.Label.Render("Best ") + s.Value.Render(strconv.Itoa(m.best()))
	if withRank && !m.opts.Guest {
		rank := "…"
		if m.standingsFor == m.size && m.me != nil {
			rank = "#" + strconv.Itoa(m.me.Rank)
		}
		line += "   " + s.Label.Render("Rank ") + s.Value.Render(rank)
	}
	return line
}

// relabel returns b with another description, for a key whose meaning
// depends on the screen (tab opens the leaderboard and goes back from it).
func relabel(b key.Binding, desc string) key.Binding {
	b.SetHelp(b.Help().Key, desc)
	return b
}

// hints renders bindings as "c keep going · n new game", from the key map.
func (m *Model) hints(bs ...key.Binding) string {
	parts := make([]string, 0, len(bs))
	for _, b := range bs {
		if b.Enabled() {
			parts = append(parts, m.styles.Help.ShortKey.Render(b.Help().Key)+" "+b.Help().Desc)
		}
	}
	return strings.Join(parts, m.styles.Dim.Render(" · "))
}

func (m *Model) helpScreen() string {
	s := m.styles
	win := strconv.Itoa(engine.Value(engine.WinExponent(m.size)))
	intro := "Slide the tiles; two equal tiles merge into one.\n" +
		"Reach " + win + " on this board to win. Each size has its own game and leaderboard.\n" +
		"Your game is saved after every move; quit any time and carry on later."
	if m.opts.Guest {
		intro += "\n" + m.opts.GuestNotice
	}
	full := m.helpModel()
	full.ShowAll = true
	return lipgloss.JoinVertical(lipgloss.Center,
		s.Title.Render("2048")+" "+s.Heading.Render("keys"),
		"",
		full.FullHelpView(m.keys.FullHelp()),
		"",
		m.wrap(intro),
		"",
		m.hints(relabel(m.keys.Back, "back")),
	)
}

func (m *Model) leaderboardScreen() string {
	s := m.styles
	var b strings.Builder
	b.WriteString(s.Title.Render("Leaderboard") + " " + s.Label.Render(fmt.Sprintf("%d×%d", m.size, m.size)))
	if m.opts.Player != "" && !m.opts.Guest {
		b.WriteString(s.Dim.Render(" · you are " + m.opts.Player))
	}
	b.WriteString("\n\n")
	switch {
	case m.standingsFor != m.size:
		b.WriteString("Loading…\n")
	case m.standingsErr != nil:
		b.WriteString(s.Error.Render("Could not load the leaderboard: "+m.standingsErr.Error()) + "\n")
	case len(m.top) == 0:
		b.WriteString("No scores yet for this size. Be the first!\n")
	default:
		b.WriteString(s.Dim.Render(m.row("", "#", "Player", "Score", "Tile")) + "\n")
		mine := false
		for _, st := range m.top {
			if m.isMe(st) {
				mine = true
				b.WriteString(s.Me.Render(m.standingRow("›", st)) + "\n")
				continue
			}
			b.WriteString(m.standingRow("", st) + "\n")
		}
		if m.me != nil && !mine {
			b.WriteString(m.row("", "⋮", "", "", "") + "\n")
			b.WriteString(s.Me.Render(m.standingRow("›", *m.me)) + "\n")
		}
	}
	if m.standingsFor == m.size && m.standingsErr == nil {
		switch {
		case m.opts.Guest:
			b.WriteString("\n" + s.Dim.Render("Guests are not on the leaderboard.") + "\n")
		case m.me == nil:
			b.WriteString("\n" + s.Dim.Render("You have no score on this board yet.") + "\n")
		}
	}
	b.WriteString("\n" + m.hints(relabel(m.keys.Leaderboard, "back"), m.keys.Size, m.keys.Quit))
	return b.String()
}

func (m *Model) isMe(st Standing) bool {
	if m.me != nil {
		return st.Rank == m.me.Rank && st.Player == m.me.Player
	}
	return false
}

func (m *Model) standingRow(mark string, st Standing) string {
	player := st.Player
	if st.Tag != "" {
		// The tag tells look-alike names apart: it stays whole, the name
		// gives way.
		player = ansi.Truncate(player, 16-1-ansi.StringWidth(st.Tag), "…") + " " + st.Tag
	}
	return m.row(mark, strconv.Itoa(st.Rank), player, strconv.Itoa(st.Score), strconv.Itoa(st.MaxTile))
}

// row lays out one leaderboard line; the mark column shows the player's
// own row without colour.
func (m *Model) row(mark, rank, player, score, tile string) string {
	// Names may hold any characters: cut and pad them by cells, not bytes.
	player = ansi.Truncate(player, 16, "…")
	player += spaces[:16-ansi.StringWidth(player)]
	return fmt.Sprintf("%-1s %4s  %s %9s %7s", mark, rank, player, score, tile)
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
