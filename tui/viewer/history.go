package viewer

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/tui/draw"
)

// historyRecent is how many recent games the history lists.
const historyRecent = 10

// historian is the screen of a player's own games: the recent ones and
// the best of each size, each replayed with enter.
type historian struct {
	p        draw.Pane
	keys     *ViewKeyMap
	opts     ViewOptions
	player   game.Player
	embedded bool

	loaded  bool
	err     error
	rows    []store.GameSummary // the recent games, then the best of each size
	recent  int                 // how many of rows are recent ones
	cursor  int
	opening bool // a replay is being loaded
	notice  string
}

// historyMsg is the player's history, read.
type historyMsg struct {
	h    *historian
	hist game.History
	err  error
}

// ReplayMsg is a game read for replaying, for the screen from that asked.
type ReplayMsg struct {
	From   any
	Replay *game.Replay
	Err    error
}

// NewHistory is the history of player run on its own.
func NewHistory(opts ViewOptions, player game.Player) *Viewer {
	opts.Defaults()
	return newViewer(newHistorian(opts, player, false), opts.Woken)
}

func newHistorian(opts ViewOptions, player game.Player, embedded bool) *historian {
	return &historian{p: opts.pane(), keys: sharedViewKeys(), opts: opts,
		player: player, embedded: embedded}
}

func (h *historian) pane() *draw.Pane { return &h.p }
func (h *historian) close()           {}
func (h *historian) Title() string    { return "2048 · your games" }
func (h *historian) goodbye() string {
	return "Your games are kept; `ssh -t HOST replay GAME` replays any of them."
}

func (h *historian) init() tea.Cmd {
	games, ctx, player := h.opts.Games, h.opts.Context, h.player
	return func() tea.Msg {
		hist, err := games.History(ctx, player, historyRecent)
		return historyMsg{h: h, hist: hist, err: err}
	}
}

// LoadReplay reads game id for replaying, for from.
func LoadReplay(ctx context.Context, games Games, id int64, from any) tea.Cmd {
	return func() tea.Msg {
		r, err := games.Replay(ctx, id)
		return ReplayMsg{From: from, Replay: r, Err: err}
	}
}

// ReplayFailedText is what a screen says when the replay it asked for
// could not be loaded: one sentence where the game is kept back on
// purpose (a game of today's daily challenge), else the error.
func ReplayFailedText(err error) string {
	switch {
	case errors.Is(err, game.ErrDailyOn):
		return "That game is part of today's daily challenge; it can be replayed once the day is over."
	case errors.Is(err, game.ErrRaceOn):
		return "That game is of a race that may still be running; it can be replayed once the race is over."
	}
	return "Could not load that game: " + err.Error()
}

func (h *historian) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case historyMsg:
		if msg.h != h {
			return nil
		}
		h.loaded, h.err = true, msg.err
		h.rows = append(append([]store.GameSummary(nil), msg.hist.Recent...), msg.hist.Best...)
		h.recent = len(msg.hist.Recent)
	case ReplayMsg:
		if msg.From != h {
			return nil
		}
		h.opening = false
		if msg.Err != nil {
			h.notice = ReplayFailedText(msg.Err)
			return nil
		}
		return open(newReplayer(h.opts, msg.Replay, true))
	case tea.KeyPressMsg:
		ks := h.keys
		switch {
		case h.embedded && key.Matches(msg, ks.Back):
			return back(h)
		case key.Matches(msg, ks.Up):
			h.cursor = max(h.cursor-1, 0)
		case key.Matches(msg, ks.Down):
			h.cursor = min(h.cursor+1, max(len(h.rows)-1, 0))
		case key.Matches(msg, ks.Open) && len(h.rows) > 0 && !h.opening:
			h.opening, h.notice = true, ""
			return LoadReplay(h.opts.Context, h.opts.Games, h.rows[h.cursor].ID, h)
		}
	}
	return nil
}

func (h *historian) Render() string {
	p, s := &h.p, h.p.Styles
	pick := key.NewBinding(key.WithKeys("up"), key.WithHelp("↑↓", "pick"))
	// Pick, then back, give way to replay and quit in a narrow window.
	keys := draw.KeysThatFit(s, []key.Binding{pick, h.keys.Open, keyBack(h.keys, h.embedded), h.keys.Quit}, []int{0, 2}, p.Width)
	title := s.Title.Render("Your games")
	if h.player.Name != "" && !h.player.Guest {
		title += s.Dim.Render(" · " + h.player.Name)
	}
	var body []string
	switch {
	case !h.loaded:
		body = []string{"Loading…"}
	case h.err != nil:
		body = draw.WrappedLines("Could not load your games: "+h.err.Error(), p.Width, s.Error.Render)
	case h.player.Guest:
		body = draw.WrappedLines("Guests' games are not kept. Connect with an SSH key to keep yours.", p.Width, nil)
	case len(h.rows) == 0:
		body = draw.WrappedLines("No games yet: play one, and it is here to replay.", p.Width, nil)
	default:
		body = h.table()
	}
	switch {
	case h.opening:
		body = append(body, "", "Loading the replay…")
	case h.notice != "":
		body = append(append(body, ""), draw.WrappedLines(h.notice, p.Width, s.Error.Render)...)
	}
	// The body is one block, its lines padded alike, so that centring
	// keeps the columns in line.
	for i, l := range body {
		body[i] = p.Fit(l)
	}
	w := draw.Widest(body)
	for i, l := range body {
		body[i] = l + strings.Repeat(" ", w-ansi.StringWidth(l))
	}
	lines := append([]string{p.Fit(title), ""}, body...)
	lines = append(lines, "", p.Fit(keys))
	return p.Centred(strings.Join(lines, "\n"))
}

// table is the two lists, as many rows as the window holds around the
// one picked.
func (h *historian) table() []string {
	s := h.p.Styles
	cells := make([]historyCells, len(h.rows))
	for i, g := range h.rows {
		cells[i] = cellsOf(g, h.when(g))
	}
	layout := newHistoryLayout(cells, h.p.Width)
	head := s.Dim.Render(layout.row(" ", historyHead))
	var out []string
	at := 0 // the line of the row picked
	section := func(title string, from, to int) {
		if from == to {
			return
		}
		out = append(out, s.Heading.Render(title), head)
		for i := from; i < to; i++ {
			if i == h.cursor {
				at = len(out)
				out = append(out, s.Me.Render(layout.row("›", cells[i])))
				continue
			}
			out = append(out, layout.row(" ", cells[i]))
		}
	}
	section("Recent", 0, h.recent)
	if h.recent > 0 && h.recent < len(h.rows) {
		out = append(out, "")
	}
	section("Best of each size", h.recent, len(h.rows))
	// Room: the title and a blank under it, a blank and the keys, a
	// notice and its blank.
	room := max(h.p.Height-6, 1)
	if len(out) <= room {
		return out
	}
	start := min(max(at-room/2, 0), len(out)-room)
	return out[start : start+room]
}

// historyCells are a row of the table: size, game, score, tile, moves and
// when.
type historyCells [6]string

var historyHead = historyCells{"size", "game", "score", "tile", "moves", "when"}

// cellsOf is the row of game g.
func cellsOf(g store.GameSummary, when string) historyCells {
	return historyCells{strconv.Itoa(g.Size) + "×" + strconv.Itoa(g.Size), "#" + strconv.FormatInt(g.ID, 10),
		strconv.Itoa(g.Score), strconv.Itoa(g.MaxTile), strconv.Itoa(g.Moves), when}
}

// historyLayout is how the table is drawn: each column as wide as its
// widest cell, and only the first cols columns, the last ones (when, then
// moves) left out when the window is too narrow for them.
type historyLayout struct {
	widths [len(historyHead)]int
	cols   int
}

// minHistoryCols are the columns kept however narrow the window: size,
// game, score and tile.
const minHistoryCols = 4

func newHistoryLayout(rows []historyCells, width int) historyLayout {
	var l historyLayout
	for _, r := range append([]historyCells{historyHead}, rows...) {
		for i, c := range r {
			l.widths[i] = max(l.widths[i], ansi.StringWidth(c))
		}
	}
	l.cols = len(historyHead)
	for l.cols > minHistoryCols && l.width() > width {
		l.cols--
	}
	return l
}

// width is a row's width: the mark, a space, and the columns two apart.
func (l historyLayout) width() int {
	w := 2 + l.widths[0]
	for _, cw := range l.widths[1:l.cols] {
		w += 2 + cw
	}
	return w
}

// row draws one row: the size and when to the left of their columns, the
// numbers to the right.
func (l historyLayout) row(mark string, c historyCells) string {
	var b strings.Builder
	b.WriteString(mark + " " + draw.PadCells(c[0], l.widths[0]))
	for i := 1; i < l.cols; i++ {
		b.WriteString("  ")
		if i == len(c)-1 {
			b.WriteString(c[i])
			break
		}
		b.WriteString(strings.Repeat(" ", l.widths[i]-ansi.StringWidth(c[i])) + c[i])
	}
	return b.String()
}

// when is "in play", or how long ago the game ended, and its kind when it
// is not a human one.
func (h *historian) when(g store.GameSummary) string {
	w := "in play"
	if g.EndedAt != nil {
		w = ago(h.opts.Now().Sub(*g.EndedAt))
	}
	switch {
	case strings.HasPrefix(g.Contest, "daily:"):
		w += " · daily"
	case strings.HasPrefix(g.Contest, "race:"):
		w += " · race"
	case g.Kind != store.KindHuman && g.Kind != "":
		w += " · " + string(g.Kind)
	}
	return w
}

// ago says how long ago d was, as a person would.
func ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute") + " ago"
	case d < 48*time.Hour:
		return plural(int(d/time.Hour), "hour") + " ago"
	}
	return plural(int(d/(24*time.Hour)), "day") + " ago"
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}
