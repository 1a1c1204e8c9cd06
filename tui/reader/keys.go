package reader

import (
	"charm.land/bubbles/v2/key"

	"github.com/ssh2048/ssh2048/tui/event"
)

// keyMap is every key the screen answers to. The moves and the commands
// are the game screen's (tui.DefaultKeyMap); b, r and the question's
// answers are this screen's own. The help lines are made from it.
type keyMap struct {
	Up, Down, Left, Right key.Binding

	Board, Score, Help, Leaderboard key.Binding
	New, Size, Bigger, Smaller      key.Binding
	Hint, Auto, History, KeepGoing  key.Binding
	Quit, Yes, No                   key.Binding
}

var keys = newKeyMap()

func newKeyMap() keyMap {
	up, down, left, right := event.MoveKeys()
	b := func(help string, ks ...string) key.Binding {
		return key.NewBinding(key.WithKeys(ks...), key.WithHelp(ks[0], help))
	}
	return keyMap{
		Up: up, Down: down, Left: left, Right: right,
		Board:       b("reads the board, row by row", "b"),
		Score:       b("reads your score, best and rank", "r"),
		Help:        b("lists the keys", "?"),
		Leaderboard: b("reads the top of the leaderboard", "tab"),
		New:         b("starts a new game, after asking", "n"),
		Size:        b("3 to 8 pick the board size", "3", "4", "5", "6", "7", "8"),
		Bigger:      b("one size up", "+", "="),
		Smaller:     b("one size down", "-", "_"),
		Hint:        b("asks the AI for a hint", "i"),
		Auto:        b("", "p"),
		History:     b("", "g"),
		KeepGoing:   b("", "c"),
		Quit:        b("quits; your game is kept", "q", "ctrl+c"),
		Yes:         b("", "y", "enter"),
		No:          b("", "n", "esc"),
	}
}

// helpLines are ?'s answer: the moves, then each key this screen has,
// with or without the AI's and the free game's.
func helpLines(ai, oneGame bool) []string {
	out := []string{"Keys: arrow keys, or w a s d, or h j k l, move the tiles."}
	line := func(b key.Binding) {
		name := b.Help().Key
		switch name {
		case "3":
			name = "3 to 8"
		case "?":
			name = "question mark"
		case "+":
			name = "plus"
		case "-":
			name = "minus"
		}
		out = append(out, name+" "+b.Help().Desc+".")
	}
	for _, b := range []key.Binding{keys.Board, keys.Score, keys.Leaderboard} {
		line(b)
	}
	if !oneGame {
		line(keys.New)
		out = append(out, "3 to 8 pick the board size; plus and minus one size up or down.")
	}
	if ai {
		line(keys.Hint)
	}
	line(keys.Help)
	line(keys.Quit)
	return out
}

// viewKeyMap is every key of the screens that show games: watching,
// TV, replays and the history. The keys that step and pick are the
// visual screens' (tui/viewer's ViewKeyMap: ← → h l step, ↑ ↓ k j pick,
// g G the start and end, : a move, enter open, esc back); b, r and ?
// are this package's, as on the game's screen.
type viewKeyMap struct {
	Board, Score, Help, Quit key.Binding

	Quiet key.Binding // watch, TV: stop telling each move, or tell them again

	StepBack, StepOn, Start, End, Jump key.Binding // replays

	Up, Down, Open, Back key.Binding // the history; esc leaves a replay opened there
}

var viewKeys = viewKeyMap{
	Board:    keys.Board,
	Score:    keys.Score,
	Help:     keys.Help,
	Quit:     keys.Quit,
	Quiet:    key.NewBinding(key.WithKeys("space", " ")),
	StepBack: key.NewBinding(key.WithKeys("left", "h")),
	StepOn:   key.NewBinding(key.WithKeys("right", "l")),
	Start:    key.NewBinding(key.WithKeys("home", "g")),
	End:      key.NewBinding(key.WithKeys("end", "G")),
	Jump:     key.NewBinding(key.WithKeys(":")),
	Up:       key.NewBinding(key.WithKeys("up", "k", "w")),
	Down:     key.NewBinding(key.WithKeys("down", "j", "s")),
	Open:     key.NewBinding(key.WithKeys("enter")),
	Back:     key.NewBinding(key.WithKeys("esc")),
}

// The keys each screen that shows games lists on ?.
var (
	watchHelp = []string{
		"Keys: b reads the board, row by row.",
		"r reads whose game it is, its score and moves.",
		"space stops telling each move, or tells them again.",
		"question mark lists the keys; q quits.",
	}
	replayHelp = []string{
		"Keys: right arrow or l, one move on; left arrow or h, one move back.",
		"g or home, the start; capital G or end, the end.",
		"colon, then a move's number and enter, goes to that move.",
		"b reads the board, r the move and score, question mark the keys; q quits.",
	}
	replayBackHelp = "escape goes back to your games."
	historyHelp    = []string{
		"Keys: up and down arrows, or k and j, pick a game and read it; g or home the first, capital G or end the last.",
		"enter replays the game picked; a number, then enter, replays that one of the list.",
		"b reads the list again, question mark the keys; q quits.",
	}
)

// noKey is what a screen says of a key that does nothing on it.
const noKey = "That key does nothing here; ? lists the keys."
