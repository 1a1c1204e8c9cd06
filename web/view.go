package web

import (
	"fmt"
	"html/template"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/store"
)

// maxNameRunes bounds a name on a page: names come from the store at most
// a terminal row's worth of cells wide, which in wide characters is still
// a long line; a page lays out tables around them.
const maxNameRunes = 24

// shortName is a name as a page shows it: control characters (none should
// be left, but a store is not trusted to be perfect) as U+FFFD, cut to
// maxNameRunes with an ellipsis. Escaping is html/template's.
func shortName(name string) string {
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return '\uFFFD'
		}
		return r
	}, name)
	if utf8.RuneCountInString(name) <= maxNameRunes {
		return name
	}
	return string([]rune(name)[:maxNameRunes-1]) + "…"
}

// cell is one cell of a board as HTML draws it.
type cell struct {
	Class string // t0 (empty) … t11 (2048), tsuper above; the colours are style.css's
	Text  string // the tile's value, "" when empty
}

// board is a board as HTML draws it.
type board struct {
	Size  int
	Cells []cell // row by row
}

// drawBoard turns an engine board into cells.
func drawBoard(b engine.Board) board {
	n := b.Size()
	out := board{Size: n, Cells: make([]cell, 0, n*n)}
	for r := range n {
		for c := range n {
			out.Cells = append(out.Cells, tileCell(b.At(r, c)))
		}
	}
	return out
}

func tileCell(exp uint8) cell {
	switch {
	case exp == 0:
		return cell{Class: "t0"}
	case exp <= 11:
		return cell{Class: fmt.Sprintf("t%d", exp), Text: fmt.Sprint(engine.Value(exp))}
	}
	return cell{Class: "tsuper", Text: shortValue(engine.Value(exp))}
}

// shortValue writes tiles above 99999 by binary prefix, as the game
// screen does (16384 fits; 131072 is 128k).
func shortValue(v int) string {
	switch {
	case v < 100000:
		return fmt.Sprint(v)
	case v < 100000<<10:
		return fmt.Sprintf("%dk", v>>10)
	case v < 100000<<20:
		return fmt.Sprintf("%dM", v>>20)
	}
	return fmt.Sprintf("%dG", v>>30)
}

// tileDigits encodes a board's exponents one character a cell, row by
// row, for the replay's JSON: the character's index in tileAlphabet is
// the exponent (0 empty, 1 is a 2, b is 2048). Its last index, 62, is
// past engine.MaxExponent.
const tileAlphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+"

func tileDigits(b engine.Board) string {
	n := b.Size()
	out := make([]byte, 0, n*n)
	for r := range n {
		for c := range n {
			out = append(out, tileAlphabet[min(int(b.At(r, c)), len(tileAlphabet)-1)])
		}
	}
	return string(out)
}

// values is a board as the bot protocol writes it: rows of tile values.
func values(b engine.Board) [][]int {
	n := b.Size()
	out := make([][]int, n)
	for r := range n {
		out[r] = make([]int, n)
		for c := range n {
			out[r][c] = b.Value(r, c)
		}
	}
	return out
}

// stamp is a time as the tables show it, UTC to the minute, its date and
// its time each kept on one line: a narrow column breaks between them,
// not inside the date at its hyphens.
func stamp(t time.Time) template.HTML {
	t = t.UTC()
	return template.HTML(`<span class="nw">` + t.Format("2006-01-02") + `</span> <span class="nw">` + t.Format("15:04") + `</span>`)
}

// kinds are the leaderboards of free play, as the site names them.
var kinds = []store.Kind{store.KindHuman, store.KindAssisted, store.KindBot}

// sizes are the board sizes, smallest first.
var sizes = func() []int {
	var out []int
	for n := engine.MinSize; n <= engine.MaxSize; n++ {
		out = append(out, n)
	}
	return out
}()

// funcs are the templates' helpers.
var funcs = template.FuncMap{
	"name": shortName,
	// tag is a player's short id as the boards over SSH tag names.
	"tag": func(shortID string) string {
		if shortID == "" {
			return ""
		}
		return store.LookAlikeTag(shortID)
	},
	// who is a player as the "who" template links them.
	"who": func(id int64, name, key string) struct {
		ID        int64
		Name, Key string
	} {
		return struct {
			ID        int64
			Name, Key string
		}{id, name, key}
	},
	"when": func(t *time.Time) template.HTML {
		if t == nil {
			return "playing"
		}
		return stamp(*t)
	},
	"day":   stamp,
	"sizes": func() []int { return sizes },
	"kinds": func() []store.Kind { return kinds },
	"rating": func(r float64) string {
		return fmt.Sprintf("%.0f", r)
	},
	"contest": func(c string) string {
		switch {
		case c == "":
			return ""
		case strings.HasPrefix(c, "daily:"):
			return "daily " + strings.TrimPrefix(c, "daily:")
		case strings.HasPrefix(c, "race:"):
			return "race"
		}
		return ""
	},
}
