package reader

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/tui/event"
	"github.com/ssh2048/ssh2048/tui/watch"
)

// historyRecent is how many recent games the history lists, as on the
// visual one.
const historyRecent = 10

// maxRowDigits bounds the number of a row typed before enter: the list
// is of historyRecent games and the best of each size.
const maxRowDigits = 2

// History is the screen of a player's own games told in lines: the
// recent ones and the best of each size, a line each (its number in the
// list, the game, score, best tile, moves, how and when it ended). The
// arrows pick one and read it, enter replays it, in lines as Replay
// tells one, and esc comes back to the list. Create it with NewHistory.
type History struct {
	lines
	games  watch.Games
	ctx    context.Context
	now    func() time.Time
	player game.Player

	loaded  bool
	rows    []store.GameSummary // the recent games, then the best of each size
	recent  int                 // how many of rows are recent ones
	cursor  int
	typed   string // a row's number typed, before enter
	opening int64  // the game whose replay is on its way, 0 for none
	rp      *replaying
}

var _ tea.Model = (*History)(nil)

// historyMsg is the player's history, read.
type historyMsg struct {
	h    *History
	hist game.History
	err  error
}

// replayMsg is a game read for replaying from the history.
type replayMsg struct {
	h   *History
	id  int64
	r   *game.Replay
	err error
}

// NewHistory is the history of player's games.
func NewHistory(opts ViewOptions, player game.Player) *History {
	opts.defaults()
	return &History{games: opts.Games, ctx: opts.Context, now: opts.Now, player: player}
}

// Init greets the player and reads their games.
func (h *History) Init() tea.Cmd {
	h.say("2048 for screen readers: your games. Press ? for the keys.")
	games, ctx, player := h.games, h.ctx, h.player
	return func() tea.Msg {
		hist, err := games.History(ctx, player, historyRecent)
		return historyMsg{h: h, hist: hist, err: err}
	}
}

// View is empty: the screen is a screen.Liner.
func (h *History) View() tea.View { return tea.NewView("") }

// Update handles the list read, a replay read, a key, or a message that
// ends the session.
func (h *History) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if cmd, done := h.ending(msg); done {
		return h, cmd
	}
	switch msg := msg.(type) {
	case historyMsg:
		if msg.h == h {
			h.listed(msg.hist, msg.err)
		}
	case replayMsg:
		if msg.h == h {
			return h, h.opened(msg)
		}
	case tea.KeyPressMsg:
		return h, h.key(event.NameOf(msg))
	}
	return h, nil
}

func (h *History) listed(hist game.History, err error) {
	h.loaded = true
	switch {
	case err != nil:
		h.say(fmt.Sprintf("Could not load your games: %v. q quits.", err))
		return
	case h.player.Guest:
		h.say("Guests' games are not kept. Connect with an SSH key to keep yours. q quits.")
		return
	}
	h.rows = append(append([]store.GameSummary(nil), hist.Recent...), hist.Best...)
	h.recent = len(hist.Recent)
	if len(h.rows) == 0 {
		h.say("No games yet: play one, and it is here to replay. q quits.")
		return
	}
	h.sayList()
}

// sayList reads the whole list, then how to replay a game of it.
func (h *History) sayList() {
	if h.recent > 0 {
		if h.recent == 1 {
			h.say("Your most recent game:")
		} else {
			h.say(fmt.Sprintf("Your %d most recent games:", h.recent))
		}
	}
	for i := range h.rows {
		if i == h.recent {
			h.say("Your best game of each size:")
		}
		h.say(h.rowLine(i))
	}
	h.say(fmt.Sprintf("Enter replays the game picked, now number %d; up and down arrows pick another.", h.cursor+1))
}

// rowLine is row i of the list: "2. Game 123, 4 by 4 bot game: score
// 4000, best tile 512, 350 moves; won, ended 3 hours ago."
func (h *History) rowLine(i int) string {
	g := h.rows[i]
	how := "in play"
	if g.EndedAt != nil {
		how = "ended " + spokenWhen(h.now(), *g.EndedAt)
		if g.Won {
			how = "won, " + how
		}
	}
	return fmt.Sprintf("%d. Game %d, %s: score %d, best tile %d, %s; %s.", i+1, g.ID,
		gameName(g.Size, g.Contest, g.Kind), g.Score, g.MaxTile, plural(g.Moves, "move"), how)
}

func (h *History) goodbye() string {
	if h.rp != nil {
		return h.rp.goodbye()
	}
	return "Your games are kept; the replay command replays any of them by its game number."
}

func (h *History) key(k event.KeyName) tea.Cmd {
	if key.Matches(k, viewKeys.Quit) {
		h.sayLast(h.goodbye())
		return tea.Quit
	}
	if h.rp != nil {
		if h.rp.key(k) {
			h.rp = nil
			h.say("Back to your games: " + h.rowLine(h.cursor))
		}
		return nil
	}
	if s := k.String(); len(s) == 1 && s[0] >= '0' && s[0] <= '9' {
		if len(h.typed) < maxRowDigits {
			h.typed += s
		}
		return nil
	}
	typed := h.typed
	h.typed = ""
	switch {
	case key.Matches(k, viewKeys.Help):
		h.say(historyHelp...)
		return nil
	case !h.loaded:
		h.say("Your games are being read.")
		return nil
	case len(h.rows) == 0:
		h.say("There is no game to replay; q quits.")
		return nil
	case key.Matches(k, viewKeys.Up):
		if h.cursor == 0 {
			h.say("That is the first game of the list.")
			return nil
		}
		h.cursor--
	case key.Matches(k, viewKeys.Down):
		if h.cursor == len(h.rows)-1 {
			h.say("That is the last game of the list.")
			return nil
		}
		h.cursor++
	case key.Matches(k, viewKeys.Start):
		h.cursor = 0
	case key.Matches(k, viewKeys.End):
		h.cursor = len(h.rows) - 1
	case key.Matches(k, viewKeys.Board):
		h.sayList()
		return nil
	case key.Matches(k, viewKeys.Open):
		if typed != "" {
			n, _ := strconv.Atoi(typed)
			if n < 1 || n > len(h.rows) {
				h.say(fmt.Sprintf("There is no game %d in the list: it has %d.", n, len(h.rows)))
				return nil
			}
			h.cursor = n - 1
		}
		return h.open()
	case k.String() == "backspace" && typed != "":
		h.typed = typed[:len(typed)-1]
		return nil
	default:
		h.say(noKey)
		return nil
	}
	h.say(h.rowLine(h.cursor))
	return nil
}

// open reads the game picked for replaying.
func (h *History) open() tea.Cmd {
	if h.opening != 0 {
		h.say(fmt.Sprintf("Game %d is being opened.", h.opening))
		return nil
	}
	id := h.rows[h.cursor].ID
	h.opening = id
	h.say(fmt.Sprintf("Opening game %d.", id))
	games, ctx := h.games, h.ctx
	return func() tea.Msg {
		r, err := games.Replay(ctx, id)
		return replayMsg{h: h, id: id, r: r, err: err}
	}
}

// opened tells the replay read, or why it could not be.
func (h *History) opened(msg replayMsg) tea.Cmd {
	h.opening = 0
	if msg.err != nil {
		h.say(replayFailed(msg.id, msg.err))
		return nil
	}
	h.rp = &replaying{l: &h.lines, r: msg.r, back: true}
	h.rp.intro()
	return nil
}

// replayFailed is why game id could not be replayed, in one sentence:
// a game kept back on purpose (today's daily, a race that may still run)
// says until when, rather than give the error's chain.
func replayFailed(id int64, err error) string {
	switch {
	case errors.Is(err, game.ErrDailyOn):
		return fmt.Sprintf("Game %d is of today's daily challenge; it can be replayed once the day is over.", id)
	case errors.Is(err, game.ErrRaceOn):
		return fmt.Sprintf("Game %d is of a race that may still be running; it can be replayed once the race is over.", id)
	case errors.Is(err, game.ErrNoGame):
		return fmt.Sprintf("There is no game %d.", id)
	}
	text := strings.TrimPrefix(err.Error(), fmt.Sprintf("game %d: ", id))
	return fmt.Sprintf("Could not replay game %d: %s.", id, strings.TrimSuffix(text, "."))
}
