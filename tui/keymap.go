package tui

import (
	"sync"

	"charm.land/bubbles/v2/key"
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
	Help        key.Binding // full help
	Quit        key.Binding // leave; the game is kept

	Yes       key.Binding // confirm a new game
	No        key.Binding // keep the current game
	KeepGoing key.Binding // after winning
	Back      key.Binding // close the leaderboard or help
}

// DefaultKeyMap returns the keys described in the README.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:          key.NewBinding(key.WithKeys("up", "w", "k"), key.WithHelp("↑ w k", "up")),
		Down:        key.NewBinding(key.WithKeys("down", "s", "j"), key.WithHelp("↓ s j", "down")),
		Left:        key.NewBinding(key.WithKeys("left", "a", "h"), key.WithHelp("← a h", "left")),
		Right:       key.NewBinding(key.WithKeys("right", "d", "l"), key.WithHelp("→ d l", "right")),
		New:         key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "new game")),
		Leaderboard: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "leaderboard")),
		Size:        key.NewBinding(key.WithKeys("3", "4", "5", "6", "7", "8"), key.WithHelp("3-8", "board size")),
		Bigger:      key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+", "bigger board")),
		Smaller:     key.NewBinding(key.WithKeys("-", "_"), key.WithHelp("-", "smaller board")),
		Hint:        key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "hint (AI)")),
		Auto:        key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "AI plays / stops")),
		Help:        key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:        key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		Yes:         key.NewBinding(key.WithKeys("y", "enter"), key.WithHelp("y", "yes, new game")),
		No:          key.NewBinding(key.WithKeys("n", "esc"), key.WithHelp("n", "no, keep playing")),
		KeepGoing:   key.NewBinding(key.WithKeys("c", "enter", "esc"), key.WithHelp("c", "keep going")),
		Back:        key.NewBinding(key.WithKeys("esc", "enter"), key.WithHelp("esc", "back")),
	}
}

// withoutAI disables the AI keys, so that they neither act nor show in help.
func (k KeyMap) withoutAI() KeyMap {
	k.Hint.SetEnabled(false)
	k.Auto.SetEnabled(false)
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
			short(k.Hint, "hint"), short(k.Auto, "autoplay"), k.Help, k.Quit},
		[]int{3, 5, 4, 2, 1, 0, 6, 7}
}

// FullHelp is the help screen, one column per group.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.Left, k.Right},
		{k.New, k.Leaderboard, k.Size, k.Bigger, k.Smaller},
		{k.Hint, k.Auto, k.Help, k.Quit},
	}
}

// CompactHelp is the help screen of a small window: the four moves on
// one line, the sizes on another.
func (k KeyMap) CompactHelp() [][]key.Binding {
	moves := key.NewBinding(key.WithKeys("up"), key.WithHelp("←↑→↓ wasd hjkl", "move"))
	sizes := key.NewBinding(key.WithKeys("3"), key.WithHelp(k.Size.Help().Key+" + -", "board size"))
	return [][]key.Binding{{moves}, {k.New, k.Leaderboard, sizes}, {k.Hint, k.Auto, k.Help, k.Quit}}
}

// sharedKeys returns the default key map, with or without the AI keys,
// made once for every session: sessions only read it.
func sharedKeys(withAI bool) *KeyMap {
	if withAI {
		return keysWithAI()
	}
	return keysWithoutAI()
}

var (
	keysWithAI    = sync.OnceValue(func() *KeyMap { k := DefaultKeyMap(); return &k })
	keysWithoutAI = sync.OnceValue(func() *KeyMap { k := DefaultKeyMap().withoutAI(); return &k })
)
