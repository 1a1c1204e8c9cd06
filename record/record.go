// Package record is the portable text form of a finished game: what
// `ssh HOST export GAME` prints and `ssh2048 verify FILE` checks. A record
// holds what the game was played from (size, tile generator, seed, moves)
// and what is claimed of its end (score, largest tile, win, final board);
// Verify replays the moves with the rules and confirms or refutes every
// claim. docs/record-format.md describes the format for other verifiers.
//
// A record is only ever made of a game that has ended: while a game can be
// played its seed is secret, since the seed tells every tile to come.
package record

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/ssh2048/ssh2048/engine"
)

// Version is the format version this package writes and reads.
const Version = 1

// header opens every record; the version follows it.
const header = "ssh2048 game record v"

// Limits on what Parse reads, so a hostile file cannot make it hold more.
const (
	MaxMoves     = 1 << 20 // more than any 8×8 game can last
	maxLineBytes = 4096
	movesPerLine = 64
)

// Errors Parse returns; callers branch on them with errors.Is.
var (
	// ErrMalformed: the text is not a record, or a field is not what it
	// should be.
	ErrMalformed = errors.New("malformed record")
	// ErrTruncated: the record ends before its "end" line.
	ErrTruncated = errors.New("truncated record")
	// ErrNewer: the record was written in a newer format (or with a tile
	// generator this build does not know); a newer ssh2048 can read it.
	ErrNewer = errors.New("record from a newer version of ssh2048")
)

// Record is one finished game.
type Record struct {
	GameID    int64
	Player    string // display name
	Key       string // the account's id (store.Account.PublicID: 12 characters of the fingerprint of the key that made it)
	Kind      string // human, assisted or bot
	Size      int
	Generator engine.Generator
	Seed      uint64
	Started   time.Time
	Ended     time.Time
	Moves     []engine.Direction

	// The claims, checked by Verify.
	Score   int
	MaxTile int
	Won     bool
	Board   engine.Board // the final board
}

// Of makes the record of g, a game that has ended, with the given moves
// and the facts Record cannot learn from the engine.
func Of(g *engine.Game, moves []engine.Direction, r Record) Record {
	r.Size, r.Generator, r.Seed, r.Moves = g.Size(), g.Generator(), g.Seed(), moves
	r.Score, r.MaxTile, r.Won, r.Board = g.Score(), g.MaxTile(), g.Won(), g.Board()
	return r
}

// Write writes r in the record format.
func Write(w io.Writer, r Record) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s%d\n", header, Version)
	fmt.Fprintf(bw, "game %d\n", r.GameID)
	fmt.Fprintf(bw, "player %s\n", oneLine(r.Player))
	fmt.Fprintf(bw, "key %s\n", oneLine(r.Key))
	fmt.Fprintf(bw, "kind %s\n", oneLine(r.Kind))
	fmt.Fprintf(bw, "size %d\n", r.Size)
	fmt.Fprintf(bw, "generator %s\n", r.Generator)
	fmt.Fprintf(bw, "seed %d\n", r.Seed)
	fmt.Fprintf(bw, "started %s\n", r.Started.UTC().Format(time.RFC3339))
	fmt.Fprintf(bw, "ended %s\n", r.Ended.UTC().Format(time.RFC3339))
	fmt.Fprintf(bw, "score %d\n", r.Score)
	fmt.Fprintf(bw, "max-tile %d\n", r.MaxTile)
	fmt.Fprintf(bw, "won %s\n", yesNo(r.Won))
	fmt.Fprintf(bw, "board %s\n", r.Board)
	fmt.Fprintf(bw, "moves %d\n", len(r.Moves))
	letters := encodeMoves(r.Moves)
	for len(letters) > 0 {
		n := min(len(letters), movesPerLine)
		bw.WriteString(letters[:n] + "\n")
		letters = letters[n:]
	}
	bw.WriteString("end\n")
	return bw.Flush()
}

// fields are the "name value" lines before the moves, in order.
var fields = []string{"game", "player", "key", "kind", "size", "generator", "seed", "started", "ended",
	"score", "max-tile", "won", "board", "moves"}

// maxRecordBytes bounds a record's text: the header and every move.
const maxRecordBytes = 64<<10 + MaxMoves + MaxMoves/movesPerLine

// Parse reads one record. A text that stops before the end of a line is
// reported truncated (a record ends with "end" and a newline), not
// malformed.
func Parse(in io.Reader) (Record, error) {
	data, err := io.ReadAll(io.LimitReader(in, maxRecordBytes+1))
	switch {
	case err != nil:
		return Record{}, fmt.Errorf("read record: %w", err)
	case len(data) > maxRecordBytes:
		return Record{}, fmt.Errorf("%w: longer than %d bytes", ErrMalformed, maxRecordBytes)
	case len(data) > 0 && data[len(data)-1] != '\n':
		return Record{}, fmt.Errorf("%w: it stops in the middle of a line", ErrTruncated)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 256), maxLineBytes)
	line := 0
	next := func() (string, error) {
		if !sc.Scan() {
			if err := sc.Err(); err != nil {
				return "", fmt.Errorf("%w: line %d: %v", ErrMalformed, line+1, err)
			}
			return "", fmt.Errorf("%w after line %d", ErrTruncated, line)
		}
		line++
		return strings.TrimRight(sc.Text(), "\r"), nil
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: line %d: %s", ErrMalformed, line, fmt.Sprintf(format, args...))
	}

	first, err := next()
	if err != nil {
		return Record{}, err
	}
	v, ok := strings.CutPrefix(first, header)
	if !ok {
		return Record{}, bad("not an ssh2048 game record (it should begin %q)", header+strconv.Itoa(Version))
	}
	switch n, err := strconv.Atoi(v); {
	case err != nil || n < 1:
		return Record{}, bad("format version %q", v)
	case n > Version:
		return Record{}, fmt.Errorf("%w: format v%d, this build reads v%d", ErrNewer, n, Version)
	}

	var r Record
	var moves int
	for _, name := range fields {
		text, err := next()
		if err != nil {
			return Record{}, err
		}
		value, ok := strings.CutPrefix(text, name+" ")
		if !ok {
			return Record{}, bad("want the %q field, got %q", name, clip(text))
		}
		if err := r.set(name, value, &moves); err != nil {
			if errors.Is(err, ErrNewer) {
				return Record{}, err
			}
			return Record{}, bad("%s: %v", name, err)
		}
	}
	var letters strings.Builder
	for letters.Len() < moves {
		text, err := next()
		if err != nil {
			return Record{}, err
		}
		if text == "end" {
			return Record{}, bad("%d moves listed, %d announced", letters.Len(), moves)
		}
		letters.WriteString(text)
	}
	if letters.Len() != moves {
		return Record{}, bad("%d moves listed, %d announced", letters.Len(), moves)
	}
	if r.Moves, err = decodeMoves(letters.String()); err != nil {
		return Record{}, bad("moves: %v", err)
	}
	last, err := next()
	if err != nil {
		return Record{}, err
	}
	if last != "end" {
		return Record{}, bad("want \"end\" after the moves, got %q", clip(last))
	}
	if r.Board.Size() != r.Size {
		return Record{}, fmt.Errorf("%w: the board is %d×%d, the size %d", ErrMalformed, r.Board.Size(), r.Board.Size(), r.Size)
	}
	return r, nil
}

// set reads one field's value into r.
func (r *Record) set(name, value string, moves *int) error {
	var err error
	switch name {
	case "game":
		r.GameID, err = strconv.ParseInt(value, 10, 64)
	case "player":
		r.Player = value
	case "key":
		r.Key = value
	case "kind":
		r.Kind = value
	case "size":
		r.Size, err = strconv.Atoi(value)
		if err == nil && (r.Size < engine.MinSize || r.Size > engine.MaxSize) {
			err = fmt.Errorf("%d is not %d to %d", r.Size, engine.MinSize, engine.MaxSize)
		}
	case "generator":
		r.Generator, err = engine.ParseGenerator(value)
		if errors.Is(err, engine.ErrGenerator) {
			return fmt.Errorf("%w: %v", ErrNewer, err)
		}
	case "seed":
		r.Seed, err = strconv.ParseUint(value, 10, 64)
	case "started":
		r.Started, err = parseTime(value)
	case "ended":
		r.Ended, err = parseTime(value)
	case "score":
		r.Score, err = nonNegative(value)
	case "max-tile":
		r.MaxTile, err = nonNegative(value)
	case "won":
		r.Won, err = parseYesNo(value)
	case "board":
		r.Board, err = engine.ParseBoard(value)
	case "moves":
		*moves, err = nonNegative(value)
		if err == nil && *moves > MaxMoves {
			err = fmt.Errorf("%d moves: at most %d", *moves, MaxMoves)
		}
	}
	return err
}

// Verdict is what a replay of a record says of its claims.
type Verdict struct {
	Replayed   *engine.Game // the game the moves give
	Mismatches []string     // each claim the replay refutes; none: confirmed
}

// Confirmed reports whether every claim holds.
func (v Verdict) Confirmed() bool { return len(v.Mismatches) == 0 }

// Verify replays r's moves from its size, generator and seed with the
// rules and checks every claim, and that the game had ended: no move left
// (a record may also be of a game its player restarted, so a game that
// could go on is reported, not an error).
func Verify(r Record) (Verdict, error) {
	g, err := r.Generator.Replay(r.Size, r.Seed, r.Moves)
	if err != nil {
		return Verdict{}, fmt.Errorf("replay: %w", err)
	}
	v := Verdict{Replayed: g}
	claim := func(what string, claimed, replayed any) {
		if claimed != replayed {
			v.Mismatches = append(v.Mismatches, fmt.Sprintf("%s: claimed %v, the moves give %v", what, claimed, replayed))
		}
	}
	claim("score", r.Score, g.Score())
	claim("max tile", r.MaxTile, g.MaxTile())
	claim("won", yesNo(r.Won), yesNo(g.Won()))
	claim("board", r.Board.String(), g.Board().String())
	claim("moves that changed the board", len(r.Moves), g.Moves())
	return v, nil
}

// encodeMoves writes one letter a move: u, d, l, r.
func encodeMoves(dirs []engine.Direction) string {
	b := make([]byte, len(dirs))
	for i, d := range dirs {
		b[i] = "urdl"[d]
	}
	return string(b)
}

func decodeMoves(s string) ([]engine.Direction, error) {
	dirs := make([]engine.Direction, len(s))
	for i := range len(s) {
		d := strings.IndexByte("urdl", s[i])
		if d < 0 {
			return nil, fmt.Errorf("move %d is %q, not one of u, d, l, r", i+1, s[i])
		}
		dirs[i] = engine.Direction(d)
	}
	return dirs, nil
}

// parseTime reads an RFC 3339 time. Write writes times in UTC, where an
// offset can carry a time near the ends of the four-digit years past them,
// into a year RFC 3339 cannot write; such a time is refused here.
func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, s)
	if err == nil && (t.UTC().Year() < 0 || t.UTC().Year() > 9999) {
		err = fmt.Errorf("%q is in the year %d in UTC, outside 0000 to 9999", s, t.UTC().Year())
	}
	return t, err
}

func nonNegative(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err == nil && n < 0 {
		err = fmt.Errorf("%d is negative", n)
	}
	return n, err
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func parseYesNo(s string) (bool, error) {
	switch s {
	case "yes":
		return true, nil
	case "no":
		return false, nil
	}
	return false, fmt.Errorf("%q: want yes or no", s)
}

// oneLine keeps a field on its line: names are cleaned by the server, but
// a record is text others may edit. Only line ends are replaced, byte for
// byte, so that a line Parse read is no longer once written (invalid UTF-8
// stays as it was, not three bytes of U+FFFD a byte).
func oneLine(s string) string { return lineEnds.Replace(s) }

var lineEnds = strings.NewReplacer("\n", " ", "\r", " ")

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
