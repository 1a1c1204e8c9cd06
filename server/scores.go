package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/charmbracelet/x/ansi"
	"github.com/ssh2048/ssh2048/db"
	"github.com/ssh2048/ssh2048/engine"
)

// MaxScoresLimit caps `scores --limit`.
const MaxScoresLimit = 1000

// ScoreEntry is one element of `scores --json`. Field names are a public
// contract (README, "scores --json").
type ScoreEntry struct {
	Rank    int        `json:"rank"`
	Name    string     `json:"name"`
	Player  string     `json:"player"` // stable per player: db.ShortID of the key's fingerprint
	Score   int        `json:"score"`
	MaxTile int        `json:"max_tile"`
	Moves   int        `json:"moves"`
	Won     bool       `json:"won"`
	Ended   *time.Time `json:"ended"` // null while the game is in progress
	GameID  int64      `json:"game_id"`
	Size    int        `json:"size"`
	Kind    string     `json:"kind"`
}

func (s *Server) runScores(sess *session, args []string) int {
	fs := newFlagSet(sess, "scores", "[--size N] [--limit K] [--bots] [--json]")
	size := fs.Int("size", 4, fmt.Sprintf("board size, %d to %d", engine.MinSize, engine.MaxSize))
	limit := fs.Int("limit", 10, fmt.Sprintf("how many players to list, 1 to %d", MaxScoresLimit))
	bots := fs.Bool("bots", false, "the bot leaderboard (games played through `bot`)")
	asJSON := fs.Bool("json", false, "print a JSON array instead of a table")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	switch {
	case *size < engine.MinSize || *size > engine.MaxSize:
		fmt.Fprintf(sess.Stderr(), "scores: --size %d: must be %d to %d\n", *size, engine.MinSize, engine.MaxSize)
		return exitUsage
	case *limit < 1 || *limit > MaxScoresLimit:
		fmt.Fprintf(sess.Stderr(), "scores: --limit %d: must be 1 to %d\n", *limit, MaxScoresLimit)
		return exitUsage
	}
	kind := db.KindHuman
	if *bots {
		kind = db.KindBot
	}
	ctx, cancel := context.WithTimeout(sess.Context(), writeTimeout)
	defer cancel()
	rows, err := s.store.Leaderboard(ctx, *size, kind, *limit)
	if err != nil {
		s.log.Error("leaderboard", "size", *size, "kind", kind, "err", err)
		fmt.Fprintln(sess.Stderr(), "ssh2048: could not read the leaderboard; try again later.")
		return exitError
	}
	entries := make([]ScoreEntry, len(rows))
	for i, r := range rows {
		entries[i] = ScoreEntry{
			Rank: r.Rank, Name: displayName(r), Player: db.ShortID(r.Fingerprint), Score: r.Score, MaxTile: r.MaxTile, Moves: r.Moves,
			Won: r.Won, Ended: r.Ended, GameID: r.GameID, Size: *size, Kind: string(kind),
		}
	}
	if *asJSON {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false) // names like "<3" stay readable
		if err := enc.Encode(entries); err != nil {
			return exitError
		}
		_, _ = sess.Write(b.Bytes())
		return exitOK
	}
	_, _, hasPty := sess.Pty()
	_, _ = sess.Write([]byte(scoresTable(entries, *size, kind, hasPty)))
	return exitOK
}

// scoresTable renders the leaderboard; bold headings only on a terminal,
// so that scripts reading plain output see no escape sequences.
func scoresTable(entries []ScoreEntry, size int, kind db.Kind, styled bool) string {
	var b strings.Builder
	title := fmt.Sprintf("Leaderboard %d×%d, %s games", size, size, kind)
	head := fmt.Sprintf("%4s  %-20s %9s %7s %7s  %s", "RANK", "NAME", "SCORE", "MAX", "MOVES", "ENDED")
	if styled {
		title, head = "\x1b[1m"+title+"\x1b[0m", "\x1b[1m"+head+"\x1b[0m"
	}
	b.WriteString(title + "\n" + head + "\n")
	if len(entries) == 0 {
		b.WriteString("  (no games yet)\n")
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name
	}
	alike := db.LookAlikes(names)
	for i, e := range entries {
		ended := "playing"
		if e.Ended != nil {
			ended = e.Ended.UTC().Format("2006-01-02 15:04")
		}
		name := padCells(e.Name, 20)
		if alike[i] {
			tag := lookAlikeTag(e.Player)
			name = padCells(ansi.Truncate(e.Name, 20-1-len(tag), "…")+" "+tag, 20)
		}
		fmt.Fprintf(&b, "%4d  %s %9d %7d %7d  %s\n", e.Rank, name, e.Score, e.MaxTile, e.Moves, ended)
	}
	return b.String()
}

// lookAlikeTag is shown beside a name that looks like another one on the
// same list (db.LookAlikes): "#" and the first 6 characters of the
// player's short id, which `scores --json` gives whole.
func lookAlikeTag(shortID string) string { return "#" + shortID[:min(6, len(shortID))] }

// displayName is an entry's name as it may be shown to anyone: cleaned
// again, for names stored before the cleaning they would get today.
func displayName(e db.Entry) string { return printable(db.DisplayName(e.Name, e.Fingerprint)) }

// printable replaces control characters with U+FFFD. Names come sanitized
// from the store; this is the last line of defence before another player's
// terminal, so an escape sequence can never get through.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '\uFFFD'
		}
		return r
	}, s)
}

// padCells cuts or pads s to exactly n terminal cells, so that wide
// characters keep the columns aligned.
func padCells(s string, n int) string {
	s = ansi.Truncate(s, n, "…")
	return s + strings.Repeat(" ", max(0, n-ansi.StringWidth(s)))
}
