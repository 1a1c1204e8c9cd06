package reader

import (
	"context"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/tui/event"
	"github.com/ssh2048/ssh2048/tui/watch"
)

// ViewOptions configure the screens that show games: NewWatch, NewTV,
// NewReplay and NewHistory, run as the server's watch, tv, replay and
// history commands with the setting for screen readers on.
type ViewOptions struct {
	Games watch.Games // required
	// Context is passed to every Games call and ends every watch; the
	// server gives the SSH session's.
	Context context.Context
	// Now is the clock for "3 hours ago" and TV's pauses; nil: time.Now.
	Now func() time.Time
	// Woken: the runner waits for the watched game itself and sends
	// event.WakeMsg (see event.Waker); else the screen waits in a
	// tea.Cmd.
	Woken bool
}

func (o *ViewOptions) defaults() {
	if o.Context == nil {
		o.Context = context.Background()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// ending is the first step of the Update of a screen that shows games:
// done once the session has ended (nothing more is said), and for a
// message that ends it, its last line said and tea.Quit.
func (l *lines) ending(msg tea.Msg) (cmd tea.Cmd, done bool) {
	if l.final != "" {
		return nil, true
	}
	if line, ok := endOf(msg); ok {
		l.sayLast(line)
		return tea.Quit, true
	}
	return nil, false
}

// endOf is the last line of a screen that shows games for a message
// that ends the session, and false for any other message. These screens
// hold no game of the player's: the lines are the visual ones'.
func endOf(msg any) (string, bool) {
	switch msg := msg.(type) {
	case event.ShutdownMsg:
		return or(msg.Text, "The server is restarting; reconnect in a moment."), true
	case event.EndMsg:
		return or(msg.Text, "The server closed this session."), true
	case event.TakenOverMsg:
		return or(msg.Text, "This session was taken over."), true
	}
	return "", false
}

func or(s, otherwise string) string {
	if s != "" {
		return s
	}
	return otherwise
}

// gameName is a game's size, contest and kind as a sentence names it:
// "4 by 4 game", "3 by 3 bot game", "4 by 4 daily challenge game".
func gameName(size int, contest string, kind store.Kind) string {
	s := sizeName(size)
	switch {
	case strings.HasPrefix(contest, "daily:"):
		s += " daily challenge"
	case strings.HasPrefix(contest, "race:"):
		s += " race"
	}
	switch kind {
	case store.KindBot:
		s += " bot"
	case store.KindAssisted:
		s += " AI-assisted"
	}
	return s + " game"
}

// winValue is the tile that wins a game of size n.
func winValue(n int) string { return strconv.Itoa(engine.Value(engine.WinExponent(n))) }

// spokenWhen says when t was, as a screen reader reads it best: "just
// now", "5 minutes ago", "3 hours ago" within a day, else the date, "on
// 27 November 2026" (UTC, the server's day).
func spokenWhen(now, t time.Time) string {
	switch d := now.Sub(t); {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute") + " ago"
	case d < 24*time.Hour:
		return plural(int(d/time.Hour), "hour") + " ago"
	}
	return "on " + t.UTC().Format("2 January 2006")
}
