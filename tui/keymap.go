package tui

import (
	"slices"
	"sync"

	"charm.land/bubbles/v2/key"
	"github.com/ssh2048/ssh2048/tui/event"
)

// KeyMap is every key the TUI answers to, in one place. The help screen and
// the help line are generated from it, so they cannot drift from the keys.
//
// WASD and hjkl both move, so s, a and h cannot be commands: board size is
// picked with the digits 3–8 (or +/-), the AI hint is i and autoplay is p.
type KeyMap struct {
	Up, Down, Left, Right key.Binding

	New         key.Binding // start a new game (asks to confirm)
	Leaderboard key.Binding // show or hide the leaderboard for this size
	Size        key.Binding // 3–8 pick the board size
	Bigger      key.Binding // one size up
	Smaller     key.Binding // one size down
	Hint        key.Binding // the AI suggests a move (only with a Hinter)
	Auto        key.Binding // the AI plays until pressed again (only with a Hinter)
	History     key.Binding // the player's own games, to replay (only with Options.Games, not for guests)
	Help        key.Binding // full help
	Quit        key.Binding // leave; the game is kept

	Yes       key.Binding // confirm a new game
	No        key.Binding // keep the current game
	KeepGoing key.Binding // after winning
	Review    key.Binding // game over: the AI's review of the game (with a Hinter and the player's games)
	Back      key.Binding // close the leaderboard or help
	Pick      key.Binding // leaderboard: watch the game picked, or replay it (only with Options.Games)

	PrevBoard, NextBoard key.Binding // the leaderboard screen's other boards
}

// DefaultKeyMap returns the keys described in the README.
func DefaultKeyMap() KeyMap {
	up, down, left, right := event.MoveKeys()
	return KeyMap{
		Up:          up,
		Down:        down,
		Left:        left,
		Right:       right,
		New:         key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "new game")),
		Leaderboard: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "leaderboard")),
		Size:        key.NewBinding(key.WithKeys("3", "4", "5", "6", "7", "8"), key.WithHelp("3-8", "board size")),
		Bigger:      key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+", "bigger board")),
		Smaller:     key.NewBinding(key.WithKeys("-", "_"), key.WithHelp("-", "smaller board")),
		Hint:        key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "hint (AI)")),
		Auto:        key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "AI plays / stops")),
		History:     key.NewBinding(key.WithKeys("g"), key.WithHelp("g", "your games")),
		Help:        key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:        key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		Yes:         key.NewBinding(key.WithKeys("y", "enter"), key.WithHelp("y", "yes, new game")),
		No:          key.NewBinding(key.WithKeys("n", "esc"), key.WithHelp("n", "no, keep playing")),
		KeepGoing:   key.NewBinding(key.WithKeys("c", "enter", "esc"), key.WithHelp("c", "keep going")),
		Review:      key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "review")),
		Back:        key.NewBinding(key.WithKeys("esc", "enter"), key.WithHelp("esc", "back")),
		Pick:        key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "watch or replay")),
		PrevBoard:   key.NewBinding(key.WithKeys("left"), key.WithHelp("←", "previous board")),
		NextBoard:   key.NewBinding(key.WithKeys("right"), key.WithHelp("→", "next board")),
	}
}

// withoutAI disables the AI keys, so that they neither act nor show in help.
func (k KeyMap) withoutAI() KeyMap {
	k.Hint.SetEnabled(false)
	k.Auto.SetEnabled(false)
	return k
}

// withoutHistory disables the key to the player's own games, where the
// screen has no game service to ask, or the player is a guest.
func (k KeyMap) withoutHistory() KeyMap {
	k.History.SetEnabled(false)
	return k
}

// withoutPick disables picking a leaderboard row to watch or replay its
// game, where the screen has no game service to ask.
func (k KeyMap) withoutPick() KeyMap {
	k.Pick.SetEnabled(false)
	return k
}

// ShortHelp is the one-line help under the board, with short words so
// that every key fits 80 columns, and the order in which keys leave the
// line when the window is narrower (indexes into the bindings): the help
// screen has them all, and help and quit are the last to go.
func (k KeyMap) ShortHelp() (bindings []key.Binding, dropOrder []int) {
	arrows := key.NewBinding(key.WithKeys("up"), key.WithHelp("←↑→↓", "move"))
	short := func(b key.Binding, desc string) key.Binding {
		b.SetHelp(b.Help().Key, desc)
		return b
	}
	return []key.Binding{arrows, short(k.New, "new"), short(k.Leaderboard, "ranks"), short(k.Size, "size"),
			short(k.Hint, "hint"), short(k.Auto, "autoplay"), short(k.History, "games"), k.Help, k.Quit},
		[]int{6, 3, 5, 4, 2, 1, 0, 7, 8}
}

// FullHelp is the help screen, one column per group.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.Left, k.Right},
		{k.New, k.Leaderboard, k.Size, k.Bigger, k.Smaller},
		{k.Hint, k.Auto, k.History, k.Help, k.Quit},
	}
}

// CompactHelp is the help screen of a small window: the four moves on
// one line, the sizes on another.
func (k KeyMap) CompactHelp() [][]key.Binding {
	moves := key.NewBinding(key.WithKeys("up"), key.WithHelp("←↑→↓ wasd hjkl", "move"))
	sizes := key.NewBinding(key.WithKeys("3"), key.WithHelp(k.Size.Help().Key+" + -", "board size"))
	return [][]key.Binding{{moves}, {k.New, k.Leaderboard, sizes}, {k.Hint, k.Auto, k.History, k.Help, k.Quit}}
}

// keySet is which keys a session's key map has.
type keySet struct {
	ai      bool // hints and autoplay (a Hinter)
	pick    bool // the leaderboard's pick, to watch or replay (Options.Games)
	history bool // the player's own games (Options.Games, not for guests)
	// oneGame: one game at one size without the AI (the daily
	// challenge's), so no new game, no size, no AI and no history keys.
	oneGame bool
}

// sharedKeys returns the default key map with the keys of set, made once
// for every session: sessions only read it.
func sharedKeys(set keySet) *KeyMap {
	if k, ok := keyMaps.Load(set); ok {
		return k.(*KeyMap)
	}
	shared, _ := keyMaps.LoadOrStore(set, newKeys(set))
	return shared.(*KeyMap)
}

// newKeys makes the key map of set. It is not inlined, for the reason
// newStyles is not: with a KeyMap in it, sharedKeys' frame took a large
// piece of stack at every call.
//
//go:noinline
func newKeys(set keySet) *KeyMap {
	k := DefaultKeyMap()
	if !set.ai || set.oneGame {
		k = k.withoutAI()
	}
	if !set.pick {
		k = k.withoutPick()
	}
	if !set.history || set.oneGame {
		k = k.withoutHistory()
	}
	if !set.ai || !set.history || set.oneGame {
		// The AI reviews the games it could hint in, of players whose
		// games are kept; never the daily's while its day is on.
		k.Review.SetEnabled(false)
	}
	if set.oneGame {
		for _, b := range []*key.Binding{&k.New, &k.Size, &k.Bigger, &k.Smaller} {
			b.SetEnabled(false)
		}
	}
	return &k
}

var keyMaps sync.Map // keySet → *KeyMap

// turnedOff reports whether k is one of b's keys while b is off on this
// screen: key.Matches never matches it then, and the screen says why the
// key does nothing.
func turnedOff(k event.KeyName, b key.Binding) bool {
	return !b.Enabled() && slices.Contains(b.Keys(), string(k))
}
