package viewer

import (
	"sync"

	"charm.land/bubbles/v2/key"
)

// ViewKeyMap is every key of the screens that show games rather than play
// them: watching a game, TV, replays and the history of one's games. As
// with KeyMap, the key lines and the replay's help are generated from it.
//
// On these screens the arrows and hjkl do not move tiles, so they are
// free to step through a replay (← → h l) and to pick a row (↑ ↓ k j).
type ViewKeyMap struct {
	// Replays.
	PlayPause key.Binding // play or pause; from the end, plays from the start
	Faster    key.Binding // double the speed, up to 64 moves a second
	Slower    key.Binding // halve it, down to 1
	StepBack  key.Binding // one move back (pauses)
	StepOn    key.Binding // one move on (pauses)
	Start     key.Binding // the start: move 0
	End       key.Binding // the last move
	Jump      key.Binding // : then the move number, then enter
	Help      key.Binding // every key of the replay
	// The AI's review of the game replayed (docs/review.md).
	Review       key.Binding // ask for it
	NextMistake  key.Binding // the next move classed a mistake or a blunder
	TurningPoint key.Binding // the turning point

	// Lists (history).
	Up, Down key.Binding // pick a row
	Open     key.Binding // replay the game picked

	Back key.Binding // leave this screen for the one that opened it
	Quit key.Binding // end the session
}

// DefaultViewKeyMap returns the keys described in the README.
func DefaultViewKeyMap() ViewKeyMap {
	return ViewKeyMap{
		PlayPause:    key.NewBinding(key.WithKeys("space", " "), key.WithHelp("space", "play/pause")),
		Faster:       key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+", "faster")),
		Slower:       key.NewBinding(key.WithKeys("-", "_"), key.WithHelp("-", "slower")),
		StepBack:     key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←", "back a move")),
		StepOn:       key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→", "on a move")),
		Start:        key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g", "start")),
		End:          key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G", "end")),
		Jump:         key.NewBinding(key.WithKeys(":"), key.WithHelp(":", "go to move")),
		Help:         key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Review:       key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "AI review")),
		NextMistake:  key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next mistake")),
		TurningPoint: key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "turning point")),
		Up:           key.NewBinding(key.WithKeys("up", "k", "w"), key.WithHelp("↑", "up")),
		Down:         key.NewBinding(key.WithKeys("down", "j", "s"), key.WithHelp("↓", "down")),
		Open:         key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "replay")),
		Back:         key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		Quit:         key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

// ReplayHelp is the replay's help screen, one column per group: moving
// through the game, and the rest.
func (k ViewKeyMap) ReplayHelp(embedded, reviews bool) [][]key.Binding {
	full := func(b key.Binding, keys, desc string) key.Binding {
		b.SetHelp(keys, desc)
		return b
	}
	other := []key.Binding{full(k.Jump, ": 123 enter", "go to move 123")}
	if reviews {
		// One row for the three, so that the help fits where it did.
		other = append(other, full(k.Review, "a n t", "AI review, next mistake, turning point"))
	}
	return [][]key.Binding{
		{k.PlayPause, full(k.Faster, "+ -", "speed: 1 to 64 moves/s"), full(k.StepBack, "← h", "back a move"),
			full(k.StepOn, "→ l", "on a move"), full(k.Start, "g home", "the start"), full(k.End, "G end", "the end")},
		append(other, k.Help, keyBack(&k, embedded), k.Quit),
	}
}

// ReplayShortHelp is the key line under a replay, and the order in which
// its keys leave it when the window is narrow (quit goes last); with a
// review shown, its two keys come first and leave last but for quit, and
// where one can be asked for (canReview), a review's key comes first.
func (k ViewKeyMap) ReplayShortHelp(embedded, canReview, reviewed bool) (bindings []key.Binding, dropOrder []int) {
	short := func(b key.Binding, keys, desc string) key.Binding {
		b.SetHelp(keys, desc)
		return b
	}
	bindings = []key.Binding{short(k.PlayPause, "space", "play"), short(k.Faster, "+-", "speed"),
		short(k.StepBack, "←→", "step"), short(k.Start, "g G", "start/end"), short(k.Jump, ":", "go to"),
		k.Help, keyBack(&k, embedded), k.Quit}
	dropOrder = []int{3, 4, 2, 1, 5, 6, 0, 7}
	var first []key.Binding
	switch {
	case reviewed:
		first = []key.Binding{short(k.NextMistake, "n", "mistake"), short(k.TurningPoint, "t", "turn")}
	case canReview:
		first = []key.Binding{short(k.Review, "a", "review")}
	}
	if len(first) > 0 {
		bindings = append(first, bindings...)
		quit := dropOrder[len(dropOrder)-1] + len(first)
		for i := range dropOrder {
			dropOrder[i] += len(first)
		}
		dropOrder = dropOrder[: len(dropOrder)-1 : len(dropOrder)-1]
		for i := len(first) - 1; i >= 0; i-- {
			dropOrder = append(dropOrder, i)
		}
		dropOrder = append(dropOrder, quit)
	}
	return bindings, dropOrder
}

// sharedViewKeys is the default view key map, made once: sessions only
// read it.
var sharedViewKeys = sync.OnceValue(func() *ViewKeyMap { k := DefaultViewKeyMap(); return &k })
