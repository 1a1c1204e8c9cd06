package tui

import (
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/ssh2048/ssh2048/tui/draw"
)

// A window with width to spare shows a panel beside the board: the best
// score (or the daily's streak), the rank, the spectators, and the top
// rows of the size's leaderboard with the player's own. Windows narrower
// than panelMinWidth (80×24, 100×30) keep the game as it always was; the
// header shows the figures there.
const (
	panelMinWidth = 110
	panelW        = 30 // the panel's width
	panelGap      = 4  // columns between the board and the panel
	panelRows     = 5  // leaderboard rows
)

// panelKey is what the panel is drawn from: it is drawn again only when
// that changes (a move that scores changes the best; most moves change
// nothing of it).
type panelKey struct {
	styles     *draw.Styles
	size, rows int
	bestLabel  string
	best, rank draw.Figure
	watchers   int
	top        *Standing // the top rows as read (their first), nil before
	topN       int
	me         Standing
	ownBest    int
	guest      bool
}

// panel is the panel as last drawn.
type panel struct {
	key   panelKey
	lines []draw.Line
	bytes int
}

// panelLines are the side panel's lines beside a board bw×bh, with the
// bytes they take, or nil where the window has no room for it.
func (m *Model) panelLines(bw, bh int) ([]draw.Line, int) {
	if m.width < panelMinWidth || bw+panelGap+panelW > m.width || bh < 4 {
		return nil, 0
	}
	bestLabel, best := m.bestField()
	k := panelKey{styles: m.styles, size: m.size, rows: bh, bestLabel: bestLabel, best: best,
		rank: m.rankFigure("…"), watchers: m.shown().Watchers(), guest: m.opts.Guest}
	if m.topFor == m.size && len(m.top) > 0 {
		k.top, k.topN = &m.top[0], len(m.top)
	}
	if m.me != nil {
		k.me = *m.me
	}
	k.ownBest, _ = m.best()
	if m.panel.lines != nil && m.panel.key == k {
		return m.panel.lines, m.panel.bytes
	}
	ink := &m.inks
	var lines []draw.Line
	add := func(s string, w int) { lines = append(lines, draw.Line{S: s, W: w}) }
	field := func(label string, f draw.Figure) {
		var sb strings.Builder
		w := ink.label.Text(&sb, draw.PadCells(strings.TrimSpace(label), 10))
		w += ink.value.Figure(&sb, f, 0)
		add(sb.String(), w)
	}
	field(bestLabel, best)
	field("Rank", k.rank)
	if k.watchers > 0 {
		field("Watching", draw.Number("", k.watchers))
	}
	if k.top != nil && bh-len(lines) >= 4 {
		add("", 0)
		var sb strings.Builder
		w := ink.title.Text(&sb, "Leaderboard") + 1
		sb.WriteByte(' ')
		w += ink.label.Text(&sb, sizeText(m.size))
		add(sb.String(), w)
		room := min(panelRows, bh-len(lines))
		mine := m.me != nil && m.me.Rank > room
		if mine {
			room-- // the player's own row, last
		}
		// The player's own row shows their best as the header does: the
		// top rows were read once, before the moves since.
		own := func(st Standing) Standing {
			if b, ok := m.best(); ok && b > st.Score {
				st.Score = b
			}
			return st
		}
		for _, st := range m.top[:min(room, len(m.top))] {
			if m.me != nil && st.Player == m.me.Player && st.Rank == m.me.Rank {
				add(m.panelRow(own(st), true), panelW)
			} else {
				add(m.panelRow(st, false), panelW)
			}
		}
		if mine {
			add(m.panelRow(own(*m.me), true), panelW)
		}
	}
	bytes := 0
	for _, l := range lines {
		bytes += len(l.S)
	}
	m.panel = panel{key: k, lines: lines, bytes: bytes}
	return lines, bytes
}

// panelRow is a leaderboard row of the panel, panelW wide: rank, name,
// score; the player's own marked as on the leaderboard.
func (m *Model) panelRow(st Standing, mine bool) string {
	mark := " "
	if mine {
		mark = "›"
	}
	score := strconv.Itoa(st.Score)
	rank := strconv.Itoa(st.Rank)
	nameW := panelW - 1 - 3 - 1 - 1 - max(7, len(score))
	row := mark + draw.PadCells(rank, 3) + " " + draw.PadCells(st.Player, nameW) + " " + strings.Repeat(" ", max(0, 7-len(score))) + score
	if mine {
		return m.styles.Me.Render(row)
	}
	return row
}

// panelStandings reads the leaderboard's top rows once for a window that
// shows the panel (they are read at login for no one else, see load).
func (m *Model) panelStandings() tea.Cmd {
	if !m.loaded || m.game == nil || m.width < panelMinWidth || m.topFor == m.size || m.panelAsked == m.size {
		return nil
	}
	m.panelAsked = m.size
	return m.refreshStandings()
}
