package tui

import (
	"strconv"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/ssh2048/ssh2048/tui/draw"
	"github.com/ssh2048/ssh2048/tui/event"
	"github.com/ssh2048/ssh2048/tui/viewer"
)

// WatchersMsg tells the game screen that spectators came or went: the
// header's count is read again in the frame that follows. The server
// sends it (see game.Seat.OnWatchers); it needs no timer of its own.
type WatchersMsg struct{}

// This file is how the game screen opens the screens that show games
// over itself: from the leaderboard, the game picked (watched if it is
// in play, else replayed), and with g the player's own games. While one
// is open it has the keys; q still ends the session, and esc goes back.

// updateViews gives msg to the screens open over the game, if it is
// theirs; done is false when the game screen must handle it (as well).
func (m *Model) updateViews(msg tea.Msg) (cmd tea.Cmd, done bool) {
	switch msg := msg.(type) {
	case viewer.ReplayMsg:
		if msg.From == m {
			return m.replayArrived(msg), true
		}
		if msg.From == (reviewAsk{m}) {
			return m.reviewArrived(msg), true
		}
		return m.views.Handle(msg), true
	case tea.KeyPressMsg:
		if m.views.Top() == nil {
			return nil, false
		}
		if key.Matches(msg, m.keys.Quit) {
			return m.quit(), true
		}
		return m.views.Handle(msg), true
	}
	if viewer.Owns(msg) {
		return m.views.Handle(msg), true
	}
	if draw.IsTerminal(msg) && m.views.Top() != nil {
		m.views.Handle(msg)
	}
	return nil, false
}

// Wake is event.Waker's: the game screen waits for what a spectator opened over
// it watches.
func (m *Model) Wake() (news, moved <-chan struct{}) { return m.views.Wake() }

var _ event.Waker = (*Model)(nil)

// viewOptions are the game screen's, for a screen opened over it.
func (m *Model) viewOptions() viewer.ViewOptions {
	o := viewer.ViewOptions{Games: m.opts.Games, Context: m.ctx, Profile: m.profile, Theme: m.opts.Theme, Woken: m.opts.Woken, Player: m.opts.Self, From: m.opts.From}
	o.Defaults()
	return o
}

// openView opens v over the game screen.
func (m *Model) openView(v viewer.View) tea.Cmd {
	p := draw.NewThemedPane(m.width, m.height, m.profile, m.light, m.opts.Theme)
	return m.views.Push(v, &p)
}

// boardRows are the rows of the board on the leaderboard screen as the
// window shows them: the top rows that fit, then the player's own row
// when it is not among them (below). mine is the index of the player's
// row among the top rows, -1 if not there.
func (m *Model) boardRows() (rows []Standing, mine int, below bool) {
	top, me, loaded, err := m.shownRows()
	if !loaded || err != nil {
		return nil, -1, false
	}
	// Room for the rows: the title and the boards' line, the head, the
	// way back and a blank line before it, and the player's own row with
	// the gap above it when it is below the top.
	room := max(1, m.height-6)
	mine = -1
	for i, st := range top {
		if me != nil && st.Rank == me.Rank && st.Player == me.Player {
			mine = i
		}
	}
	shown := min(len(top), room)
	below = me != nil && (mine < 0 || mine >= shown)
	if below {
		shown = max(1, min(len(top), room-2))
	}
	rows = append(rows, top[:shown]...)
	if below {
		rows = append(rows, *me)
		if mine >= shown {
			mine = -1
		}
	}
	return rows, mine, below
}

// pickRow moves the leaderboard's pick, or opens the game picked.
func (m *Model) pickRow(k event.KeyName) tea.Cmd {
	rows, _, _ := m.boardRows()
	switch {
	case len(rows) == 0:
		return nil
	case key.Matches(k, m.keys.Up):
		m.lbCursor = max(m.lbCursor-1, 0)
		return nil
	case key.Matches(k, m.keys.Down):
		m.lbCursor = min(m.lbCursor+1, len(rows)-1)
		return nil
	}
	st := rows[min(m.lbCursor, len(rows)-1)]
	if st.GameID == 0 || m.lbOpening != 0 {
		return nil
	}
	if g, ok := m.game.(interface{ ID() int64 }); ok && g.ID() == st.GameID {
		m.screen = m.gameScreen() // the game on screen is the player's own
		return nil
	}
	if !st.Ended {
		if w, err := m.opts.Games.Watch(m.ctx, st.GameID); err == nil {
			m.lbNotice = ""
			return m.openView(viewer.WatchOver(m.viewOptions(), w))
		}
		// No one plays it right now: it is replayed up to its last move.
	}
	m.lbOpening, m.lbNotice = st.GameID, "Loading game #"+strconv.FormatInt(st.GameID, 10)+"…"
	return viewer.LoadReplay(m.ctx, m.opts.Games, st.GameID, m)
}

// replayArrived opens the replay the leaderboard asked for, if the
// player is still there.
func (m *Model) replayArrived(msg viewer.ReplayMsg) tea.Cmd {
	m.lbOpening = 0
	if msg.Err != nil {
		m.lbNotice = viewer.ReplayFailedText(msg.Err)
		return nil
	}
	m.lbNotice = ""
	if m.screen != screenLeaderboard || m.views.Top() != nil {
		return nil
	}
	return m.openView(viewer.ReplayOver(m.viewOptions(), msg.Replay))
}

// reviewAsk marks the replay the game-over box's review key asked for.
type reviewAsk struct{ m *Model }

// reviewGame opens the replay of the game just over with the AI's review
// of it being made (or the stored one).
func (m *Model) reviewGame() tea.Cmd {
	g, ok := m.game.(interface{ ID() int64 })
	if !ok || m.opts.Games == nil {
		return nil
	}
	m.notice, m.noticeErr = "Loading the game to review…", false
	return viewer.LoadReplay(m.ctx, m.opts.Games, g.ID(), reviewAsk{m})
}

// reviewArrived opens the replay the review key asked for, if the game
// is still over on screen.
func (m *Model) reviewArrived(msg viewer.ReplayMsg) tea.Cmd {
	m.notice = ""
	if msg.Err != nil {
		m.notice, m.noticeErr = viewer.ReplayFailedText(msg.Err), true
		return nil
	}
	if m.screen != screenOver || m.views.Top() != nil {
		return nil
	}
	return m.openView(viewer.ReviewOver(m.viewOptions(), msg.Replay))
}
