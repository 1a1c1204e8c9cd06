package reader

import (
	"strconv"
	"strings"

	"github.com/ssh2048/ssh2048/engine"
)

// Moved is what one move did, as its sentence tells it: the board
// before it, the direction, the engine's result, and the score after.
type Moved struct {
	Before engine.Board
	Dir    engine.Direction
	Result engine.Result
	Score  int
}

// MoveSentence is the one sentence a move is told in: "Left: 2 and 2
// merged into 4 in row 1; new 2 at row 3, column 4. Score 120." Merges
// are told line by line (rows for left and right, columns for up and
// down), in reading order; a move that changes nothing says so.
func MoveSentence(m Moved) string {
	var b strings.Builder
	b.WriteString(dirName(m.Dir))
	b.WriteString(": ")
	if !m.Result.Moved {
		b.WriteString("nothing moves.")
		return b.String()
	}
	merges := mergeClauses(m.Before, m.Dir)
	if len(merges) == 0 {
		b.WriteString("tiles slide, nothing merges")
	} else {
		b.WriteString(strings.Join(merges, "; "))
	}
	sp := m.Result.Spawn
	b.WriteString("; new ")
	b.WriteString(strconv.Itoa(engine.Value(sp.Exp)))
	b.WriteString(" at ")
	b.WriteString(cell(sp.Row, sp.Col))
	b.WriteString(". Score ")
	b.WriteString(strconv.Itoa(m.Score))
	b.WriteString(".")
	return b.String()
}

// mergeClauses are a move's merges, one clause per row (or column) that
// has any: "2 and 2 merged into 4 in row 1", "2 and 2 merged into 4, and
// 8 and 8 merged into 16, in row 2".
func mergeClauses(before engine.Board, d engine.Direction) []string {
	merged := before.Merges(d)
	n := merged.Size()
	byRow := d == engine.Left || d == engine.Right
	var out []string
	for line := range n {
		var parts []string
		for i := range n {
			r, c := line, i
			if !byRow {
				r, c = i, line
			}
			if e := merged.At(r, c); e != 0 {
				half := strconv.Itoa(engine.Value(e - 1))
				parts = append(parts, half+" and "+half+" merged into "+strconv.Itoa(engine.Value(e)))
			}
		}
		if len(parts) == 0 {
			continue
		}
		where := " in row "
		if !byRow {
			where = " in column "
		}
		where += strconv.Itoa(line + 1)
		if len(parts) == 1 {
			out = append(out, parts[0]+where)
			continue
		}
		out = append(out, strings.Join(parts[:len(parts)-1], ", ")+", and "+parts[len(parts)-1]+","+where)
	}
	return out
}

// BoardLines read the board row by row: "Row 1: 2, empty, empty, 4."
func BoardLines(b engine.Board) []string {
	n := b.Size()
	out := make([]string, 0, n)
	for r := range n {
		var s strings.Builder
		s.WriteString("Row ")
		s.WriteString(strconv.Itoa(r + 1))
		s.WriteString(": ")
		for c := range n {
			if c > 0 {
				s.WriteString(", ")
			}
			if e := b.At(r, c); e == 0 {
				s.WriteString("empty")
			} else {
				s.WriteString(strconv.Itoa(engine.Value(e)))
			}
		}
		s.WriteString(".")
		out = append(out, s.String())
	}
	return out
}

// cell names a cell as the sentences do: "row 3, column 4".
func cell(row, col int) string {
	return "row " + strconv.Itoa(row+1) + ", column " + strconv.Itoa(col+1)
}

// dirName is a direction as a sentence begins with it.
func dirName(d engine.Direction) string {
	return [...]string{engine.Up: "Up", engine.Right: "Right", engine.Down: "Down", engine.Left: "Left"}[d&3]
}

// sizeName is "4×4" said as a screen reader reads it best: "4 by 4".
func sizeName(n int) string {
	return strconv.Itoa(n) + " by " + strconv.Itoa(n)
}
