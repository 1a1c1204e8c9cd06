package viewer

import (
	"context"
	"net/netip"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/tui/draw"
	"github.com/ssh2048/ssh2048/tui/event"
	"github.com/ssh2048/ssh2048/tui/watch"
)

// Games is what the screens that show games need of the game service
// (see watch.Games).
type Games = watch.Games

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
	// Theme is the player's tile colours.
	Theme draw.Theme
	// Now is the clock for "3 hours ago" and TV's pauses; nil: time.Now.
	Now func() time.Time
	// Woken: the runner waits for the screens' news itself and sends
	// event.WakeMsg (see event.Waker); else a spectator waits in a tea.Cmd.
	Woken bool
	// Player is who is looking: a replay may review their own game in
	// play (see Reviews).
	Player game.Player
	// From is Player's IP address, which the reviews being made for one
	// network count against (game.Service.Review); the invalid Addr for
	// none.
	From netip.Addr
}

// pane is the window a screen opened with these options starts with,
// until the terminal says what it is.
func (o *ViewOptions) pane() draw.Pane { return draw.NewThemedPane(80, 24, o.Profile, false, o.Theme) }

func (o *ViewOptions) Defaults() {
	if o.Context == nil {
		o.Context = context.Background()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// View is one screen that shows games. Screens stack: the game screen or
// a command opens one, which may open another (history opens a replay);
// esc goes back to the one below.
type View interface {
	init() tea.Cmd
	// update handles a message for this screen; terminal messages have
	// already reached its pane.
	update(msg tea.Msg) tea.Cmd
	Render() string
	Title() string // the window title
	// goodbye is the last line when the session ends on this screen.
	goodbye() string
	pane() *draw.Pane
	close() // stop watching, stop the clock
}

// WatchOver, ReplayOver and HistoryOver are the screens the game screen
// opens over itself, in its Stack: esc goes back to the game, where on
// their own (NewWatch, NewReplay, NewHistory) it ends the session.
func WatchOver(opts ViewOptions, w *game.Watch) View { return watchGame(opts, w) }

// ReplayOver is r replayed over the game screen (see WatchOver).
func ReplayOver(opts ViewOptions, r *game.Replay) View { return newReplayer(opts, r, true) }

// ReviewOver is r replayed over the game screen with the AI's review of
// it asked for at once (see WatchOver).
func ReviewOver(opts ViewOptions, r *game.Replay) View {
	rp := newReplayer(opts, r, true)
	rp.reviewAtOnce = true
	return rp
}

// HistoryOver is player's history over the game screen (see WatchOver).
func HistoryOver(opts ViewOptions, player game.Player) View {
	return newHistorian(opts, player, true)
}

// Owns reports whether msg is for the screens that show games: their own
// messages, and the runner's wakes. The game screen, with screens open
// over it, gives them these.
func Owns(msg tea.Msg) bool {
	switch msg.(type) {
	case tickMsg, historyMsg, openMsg, backMsg, reviewMsg:
		return true
	}
	return watch.Owns(msg)
}

// openMsg puts a screen on top of the one that sent it.
type openMsg struct{ v View }

// backMsg closes the screen from, which must be on top.
type backMsg struct{ from View }

func open(v View) tea.Cmd { return func() tea.Msg { return openMsg{v} } }
func back(v View) tea.Cmd { return func() tea.Msg { return backMsg{v} } }
func pause(d time.Duration, msg tea.Msg) tea.Cmd {
	return tea.Tick(d, func(time.Time) tea.Msg { return msg })
}

// Stack is a stack of screens; the top one has the keys.
type Stack struct {
	stack []View
	Slot  *event.WakeSlot // what the spectator on top waits on, when the runner wakes it (event.Waker); nil: it waits in a tea.Cmd
}

// attach gives v what it needs of the stack.
func (vs *Stack) attach(v View) {
	if s, ok := v.(*spectator); ok {
		s.f.Slot = vs.Slot
	}
}

// Wake is event.Waker's Wake for the stack.
func (vs *Stack) Wake() (news, moved <-chan struct{}) {
	if vs.Slot == nil {
		return nil, nil
	}
	return vs.Slot.Wake()
}

// Top is the screen on top, which has the keys; nil when none is open.
func (vs *Stack) Top() View {
	if len(vs.stack) == 0 {
		return nil
	}
	return vs.stack[len(vs.stack)-1]
}

// Push opens v over the window of like, which it takes its size and
// colours from.
func (vs *Stack) Push(v View, like *draw.Pane) tea.Cmd {
	p := v.pane()
	p.Width, p.Height, p.Light, p.Theme = like.Width, like.Height, like.Light, like.Theme
	p.SetProfile(like.Profile)
	vs.attach(v)
	vs.stack = append(vs.stack, v)
	return v.init()
}

// Handle gives msg to the screens: terminal messages to all of them,
// openings and closings to the stack, the rest to the top one.
func (vs *Stack) Handle(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case openMsg:
		if top := vs.Top(); top != nil {
			return vs.Push(msg.v, top.pane())
		}
		msg.v.close() // the screen that asked is gone
		return nil
	case backMsg:
		if top := vs.Top(); top != nil && top == msg.from {
			top.close()
			vs.stack = vs.stack[:len(vs.stack)-1]
		}
		return nil
	}
	if draw.IsTerminal(msg) {
		for _, v := range vs.stack {
			v.pane().Terminal(msg)
		}
	}
	if top := vs.Top(); top != nil {
		return top.update(msg)
	}
	return nil
}

func (vs *Stack) CloseAll() {
	for i := len(vs.stack) - 1; i >= 0; i-- {
		vs.stack[i].close()
	}
	vs.stack = nil
}

// Viewer runs a stack of screens that show games on its own: the model
// of the server's watch, tv, replay and history commands.
type Viewer struct {
	views Stack
	keys  *ViewKeyMap
	final string
	width int
}

var _ tea.Model = (*Viewer)(nil)

func newViewer(v View, woken bool) *Viewer {
	m := &Viewer{views: Stack{stack: []View{v}}, keys: sharedViewKeys(), width: v.pane().Width}
	if woken {
		m.views.Slot = event.NewWakeSlot()
	}
	m.views.attach(v)
	return m
}

// Wake is event.Waker's: the Viewer waits for what its spectator watches.
func (m *Viewer) Wake() (news, moved <-chan struct{}) { return m.views.Wake() }

var _ event.Waker = (*Viewer)(nil)

// Init starts the bottom screen.
func (m *Viewer) Init() tea.Cmd { return m.views.Top().init() }

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
			return m, m.end(m.views.Top().goodbye())
		}
	case event.ShutdownMsg:
		return m, m.end(or(msg.Text, "The server is restarting; reconnect in a moment."))
	case event.EndMsg:
		return m, m.end(msg.Text)
	case event.TakenOverMsg: // a viewer holds no game; for completeness
		return m, m.end(or(msg.Text, "This session was taken over."))
	}
	top := m.views.Top()
	cmd := m.views.Handle(msg)
	if m.views.Top() == nil { // the bottom screen went back: nothing is left
		return m, m.end(top.goodbye())
	}
	return m, cmd
}

func (m *Viewer) end(line string) tea.Cmd {
	m.final = line
	m.views.CloseAll()
	return tea.Quit
}

// View draws the top screen; once the session ends, its last line on the
// main screen.
func (m *Viewer) View() tea.View {
	if m.final != "" {
		return tea.NewView(draw.FinalText(m.final, m.width) + "\n")
	}
	top := m.views.Top()
	v := tea.NewView(top.Render())
	v.AltScreen = true
	v.WindowTitle = top.Title()
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
