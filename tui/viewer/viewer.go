package tui

import (
	"context"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/ssh2048/ssh2048/game"
)

// Games is what the screens that show games need of the game service:
// watching games in play, the best of them for TV, replays and a
// player's history. *game.Service is one; the server puts a cache in
// front of Live, which every TV asks each second.
type Games interface {
	Watch(id int64) (*game.Watch, error)
	WatchPlayer(who string) (*game.Watch, error)
	Playing(who string) (game.Snapshot, bool)
	Live(size int) []game.Snapshot
	Replay(ctx context.Context, id int64) (*game.Replay, error)
	History(ctx context.Context, p game.Player, recent int) (game.History, error)
}

// ViewOptions configure the screens that show games (NewWatch, NewTV,
// NewReplay, NewHistory) when they run on their own, as the server's
// watch, tv, replay and history commands run them.
type ViewOptions struct {
	Games Games // required
	// Context is passed to every Games call and ends every watch; the
	// server gives the SSH session's.
	Context context.Context
	// Profile is the colour profile until the screen reports the
	// session's own; zero means TrueColor.
	Profile colorprofile.Profile
	// Now is the clock for "3 hours ago" and TV's pauses; nil: time.Now.
	Now func() time.Time
	// Woken: the runner waits for the screens' news itself and sends
	// WakeMsg (see Waker); else a spectator waits in a tea.Cmd.
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

// view is one screen that shows games. Screens stack: the game screen or
// a command opens one, which may open another (history opens a replay);
// esc goes back to the one below.
type view interface {
	init() tea.Cmd
	// update handles a message for this screen; terminal messages have
	// already reached its pane.
	update(msg tea.Msg) tea.Cmd
	render() string
	title() string // the window title
	// goodbye is the last line when the session ends on this screen.
	goodbye() string
	pane() *pane
	close() // stop watching, stop the clock
}

// openMsg puts a screen on top of the one that sent it.
type openMsg struct{ v view }

// backMsg closes the screen from, which must be on top.
type backMsg struct{ from view }

func open(v view) tea.Cmd { return func() tea.Msg { return openMsg{v} } }
func back(v view) tea.Cmd { return func() tea.Msg { return backMsg{v} } }
func pause(d time.Duration, msg tea.Msg) tea.Cmd {
	return tea.Tick(d, func(time.Time) tea.Msg { return msg })
}

// views is a stack of screens; the top one has the keys.
type views struct {
	stack []view
	slot  *wakeSlot // what the spectator on top waits on, when the runner wakes it (Waker); nil: it waits in a tea.Cmd
}

// attach gives v what it needs of the stack.
func (vs *views) attach(v view) {
	if s, ok := v.(*spectator); ok {
		s.slot = vs.slot
	}
}

// wake is Waker.Wake for the stack.
func (vs *views) wake() (news, moved <-chan struct{}) {
	if vs.slot == nil {
		return nil, nil
	}
	return vs.slot.wake()
}

func (vs *views) top() view {
	if len(vs.stack) == 0 {
		return nil
	}
	return vs.stack[len(vs.stack)-1]
}

// push opens v over the window of like, which it takes its size and
// colours from.
func (vs *views) push(v view, like *pane) tea.Cmd {
	p := v.pane()
	p.width, p.height, p.light = like.width, like.height, like.light
	p.setProfile(like.profile)
	vs.attach(v)
	vs.stack = append(vs.stack, v)
	return v.init()
}

// handle gives msg to the screens: terminal messages to all of them,
// openings and closings to the stack, the rest to the top one.
func (vs *views) handle(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case openMsg:
		if top := vs.top(); top != nil {
			return vs.push(msg.v, top.pane())
		}
		msg.v.close() // the screen that asked is gone
		return nil
	case backMsg:
		if top := vs.top(); top != nil && top == msg.from {
			top.close()
			vs.stack = vs.stack[:len(vs.stack)-1]
		}
		return nil
	}
	if isTerminal(msg) {
		for _, v := range vs.stack {
			v.pane().terminal(msg)
		}
	}
	if top := vs.top(); top != nil {
		return top.update(msg)
	}
	return nil
}

func (vs *views) closeAll() {
	for i := len(vs.stack) - 1; i >= 0; i-- {
		vs.stack[i].close()
	}
	vs.stack = nil
}

// Viewer runs a stack of screens that show games on its own: the model
// of the server's watch, tv, replay and history commands.
type Viewer struct {
	views views
	keys  *ViewKeyMap
	final string
	width int
}

var _ tea.Model = (*Viewer)(nil)

func newViewer(v view, woken bool) *Viewer {
	m := &Viewer{views: views{stack: []view{v}}, keys: sharedViewKeys(), width: v.pane().width}
	if woken {
		m.views.slot = newWakeSlot()
	}
	m.views.attach(v)
	return m
}

// Wake is Waker's: the Viewer waits for what its spectator watches.
func (m *Viewer) Wake() (news, moved <-chan struct{}) { return m.views.wake() }

var _ Waker = (*Viewer)(nil)

// Init starts the bottom screen.
func (m *Viewer) Init() tea.Cmd { return m.views.top().init() }

// Update handles one message: quit and the server's notices end the
// session; everything else goes to the screens.
func (m *Viewer) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if m.final != "" {
		return m, nil
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width = msg.Width
	case tea.KeyPressMsg:
		if key.Matches(msg, m.keys.Quit) {
			return m, m.end(m.views.top().goodbye())
		}
	case ShutdownMsg:
		return m, m.end(or(msg.Text, "The server is restarting; reconnect in a moment."))
	case EndMsg:
		return m, m.end(msg.Text)
	case TakenOverMsg: // a viewer holds no game; for completeness
		return m, m.end(or(msg.Text, "This session was taken over."))
	}
	top := m.views.top()
	cmd := m.views.handle(msg)
	if m.views.top() == nil { // the bottom screen went back: nothing is left
		return m, m.end(top.goodbye())
	}
	return m, cmd
}

func (m *Viewer) end(line string) tea.Cmd {
	m.final = line
	m.views.closeAll()
	return tea.Quit
}

// View draws the top screen; once the session ends, its last line on the
// main screen.
func (m *Viewer) View() tea.View {
	if m.final != "" {
		return tea.NewView(finalText(m.final, m.width) + "\n")
	}
	top := m.views.top()
	v := tea.NewView(top.render())
	v.AltScreen = true
	v.WindowTitle = top.title()
	return v
}

func or(s, otherwise string) string {
	if s != "" {
		return s
	}
	return otherwise
}

// keyBack is the back key, shown and working only on a screen that has
// one below it.
func keyBack(keys *ViewKeyMap, embedded bool) key.Binding {
	b := keys.Back
	b.SetEnabled(embedded)
	return b
}
