package tui

import (
	"fmt"
	"strconv"
	"strings"

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
		body = m.gameScreenView()
	}
	return lipgloss.Place(m.width, m.height, lipgloss.Center, lipgloss.Center, body)
}

// wrap fits text to the window width.
func (m *Model) wrap(s string) string {
	return lipgloss.NewStyle().Width(max(m.width, 10)).Align(lipgloss.Center).Render(s)
}

// chrome is how many lines the game screen has besides the board: the
// header, the status line and the help line.
func chrome(headerLines int) int { return headerLines + 2 }

// gameScreenView is the header, the board (with a dialog over it on the
// win, game-over and confirm screens), the status line and the help line.
func (m *Model) gameScreenView() string {
	header := m.header()
	headerLines := strings.Count(header, "\n") + 1
	n := m.size
	t, ok := m.pickTier(n, headerLines)
	if !ok {
		minW, minH := tiers[0].boardSize(n)
		minH += chrome(2)
		return m.wrap(fmt.Sprintf("Window too small\nneed %d×%d, is %d×%d\n3-8 size · q quit",
			minW, minH, m.width, m.height))
	}
	if m.cache == nil || m.cache.t != t || m.cache.n != n {
		m.cache = newBoardCache(&m.styles, t, n)
	}
	b := m.game.Board()
	board := m.cache.lines(&b)
	if d := m.dialog(); d != "" {
		board = m.cache.overlay(board, m.styles.Dialog.Render(d))
	}
	status := m.notice
	if m.noticeErr {
		status = m.styles.Error.Render(status)
	}
	lines := append([]string{header}, board...)
	lines = append(lines, m.fit(status), m.fit(m.help.ShortHelpView(m.keys.ShortHelp())))
	return lipgloss.JoinVertical(lipgloss.Center, lines...)
}

// fits reports whether the board can be drawn at all in the window.
func (m *Model) fits() bool {
	_, ok := m.pickTier(m.size, strings.Count(m.header(), "\n")+1)
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

// header is "2048 4×4  Score 1234 +32  Best 5000  Rank #12  Moves 321",
// on two lines when the window is narrow.
func (m *Model) header() string {
	s := &m.styles
	gain := ""
	if m.lastGain > 0 {
		gain = "+" + strconv.Itoa(m.lastGain)
	}
	// The gain keeps its room when empty, so the line does not jump.
	gain = s.Gain.Render(fmt.Sprintf("%-7s", gain))
	rank := "–"
	switch {
	case m.opts.Guest:
		rank = "guest"
	case m.me != nil && m.standingsFor == m.size:
		rank = "#" + strconv.Itoa(m.me.Rank)
	}
	title := s.Title.Render("2048") + " " + s.Label.Render(fmt.Sprintf("%d×%d", m.size, m.size))
	score := s.Label.Render("Score ") + s.Value.Render(strconv.Itoa(m.game.Score())) + " " + gain
	rest := s.Label.Render("Best ") + s.Value.Render(strconv.Itoa(m.best())) + "   " +
		s.Label.Render("Rank ") + s.Value.Render(rank) + "   " +
		s.Label.Render("Moves ") + s.Value.Render(strconv.Itoa(m.game.Moves()))
	one := title + "   " + score + rest
	if lipgloss.Width(one) <= m.width {
		return one
	}
	return title + "   " + score + "\n" + rest
}

// dialog is the text of the box drawn over the board, if any.
func (m *Model) dialog() string {
	s := &m.styles
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
	s := &m.styles
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
	s := &m.styles
	win := strconv.Itoa(engine.Value(engine.WinExponent(m.size)))
	intro := "Slide the tiles; two equal tiles merge into one.\n" +
		"Reach " + win + " on this board to win. Each size has its own game and leaderboard.\n" +
		"Your game is saved after every move; quit any time and carry on later."
	if m.opts.Guest {
		intro += "\n" + m.opts.GuestNotice
	}
	full := m.help
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
	s := &m.styles
	var b strings.Builder
	b.WriteString(s.Title.Render("Leaderboard") + " " + s.Label.Render(fmt.Sprintf("%d×%d", m.size, m.size)) + "\n\n")
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
	return m.row(mark, strconv.Itoa(st.Rank), st.Player, strconv.Itoa(st.Score), strconv.Itoa(st.MaxTile))
}

// row lays out one leaderboard line; the mark column shows the player's
// own row without colour.
func (m *Model) row(mark, rank, player, score, tile string) string {
	if r := []rune(player); len(r) > 16 {
		player = string(r[:15]) + "…"
	}
	return fmt.Sprintf("%-1s %4s  %-16s %9s %7s", mark, rank, player, score, tile)
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
