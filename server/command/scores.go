package command

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/wire"
)

// readTimeout bounds the leaderboard read of one `scores`.
const readTimeout = 5 * time.Second

// scoresCommand is `scores`: the leaderboards, and with --daily and
// --races the boards of contestscores.go.
func scoresCommand() Command {
	return Command{
		Name:    "scores",
		Args:    "[--size N] [--limit K] [--offset N] [--bots] [--daily [--date YYYY-MM-DD]] [--races] [--json]",
		Summary: "the leaderboard; --daily a day's challenge, --races the race ratings",
		run:     (*Table).runScores,
	}
}

func (t *Table) runScores(sess *session.Session, fs *commandFlags, args []string) int {
	size := fs.Int("size", 4, fmt.Sprintf("board size, %d to %d", engine.MinSize, engine.MaxSize))
	limit := fs.Int("limit", 10, fmt.Sprintf("how many players to list, 1 to %d", wire.MaxScoresLimit))
	offset := fs.Int("offset", 0, "list from rank N+1 on: the next page of --limit players")
	// No backquotes in a flag's usage: the flag package would show the
	// quoted word as the flag's argument ("-bots bot").
	bots := fs.Bool("bots", false, "the bot leaderboard (games played with the bot command)")
	asJSON := fs.Bool("json", false, "print a JSON array instead of a table")
	daily := fs.Bool("daily", false, "the daily challenge's board of a day (today unless --date)")
	date := fs.String("date", "", "with --daily: the day, YYYY-MM-DD (UTC); a day that is over shows its seed")
	races := fs.Bool("races", false, "the race ratings (with --bots: the races with bots, by wins)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	switch {
	case *daily && *races:
		fmt.Fprintln(sess.Stderr(), "scores: --daily and --races are two boards; pick one")
		return wire.ExitUsage
	case *date != "" && !*daily:
		fmt.Fprintln(sess.Stderr(), "scores: --date goes with --daily")
		return wire.ExitUsage
	case *daily && *bots:
		fmt.Fprintln(sess.Stderr(), "scores: the daily challenge has no bot board")
		return wire.ExitUsage
	case *races && isSet(fs, "size"):
		// Not ignored: `--races --size 5` would print every size's
		// ratings under a reader who asked for 5×5's.
		fmt.Fprintln(sess.Stderr(), "scores: --races has no --size: a race rating counts races of every size")
		return wire.ExitUsage
	case *offset < 0:
		fmt.Fprintf(sess.Stderr(), "scores: --offset %d: must be 0 or more\n", *offset)
		return wire.ExitUsage
	case *offset > 0 && (*daily || *races):
		fmt.Fprintln(sess.Stderr(), "scores: --offset pages the score boards, not --daily or --races")
		return wire.ExitUsage
	}
	switch {
	case !sizeOK(sess, "scores", *size):
		return wire.ExitUsage
	case *limit < 1 || *limit > wire.MaxScoresLimit:
		fmt.Fprintf(sess.Stderr(), "scores: --limit %d: must be 1 to %d\n", *limit, wire.MaxScoresLimit)
		return wire.ExitUsage
	}
	switch {
	case *daily:
		return t.runDailyScores(sess, *date, *size, *limit, *asJSON)
	case *races:
		return t.runRaceScores(sess, *bots, *limit, *asJSON)
	}
	kind := store.KindHuman
	if *bots {
		kind = store.KindBot
	}
	ctx, cancel := context.WithTimeout(sess.Context(), readTimeout)
	defer cancel()
	rows, err := t.games.LeaderboardFrom(ctx, *size, kind, *offset, *limit)
	if err != nil {
		t.log.Error("leaderboard", "size", *size, "kind", kind, "err", err)
		fmt.Fprintln(sess.Stderr(), "ssh2048: could not read the leaderboard; try again later.")
		return wire.ExitError
	}
	entries := make([]wire.ScoreEntry, len(rows))
	for i, r := range rows {
		entries[i] = wire.ScoreEntry{
			Rank: r.Rank, Name: r.Name, Player: store.ShortID(r.Fingerprint), Score: r.Score, MaxTile: r.MaxTile, Moves: r.Moves,
			Won: r.Won, Ended: r.Ended, GameID: r.GameID, Size: *size, Kind: string(kind),
		}
	}
	if *asJSON {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false) // names like "<3" stay readable
		if err := enc.Encode(entries); err != nil {
			return wire.ExitError
		}
		_, _ = sess.Write(b.Bytes())
		return wire.ExitOK
	}
	_, _, hasPty := sess.Pty()
	empty := noGames
	if *offset > 0 {
		// The board may have games, only not that many.
		empty = fmt.Sprintf("no one ranked below #%d", *offset)
	}
	_, _ = sess.Write([]byte(scoresTable(entries, *size, kind, hasPty, empty)))
	return wire.ExitOK
}

// noGames is what an empty leaderboard says.
const noGames = "no games yet"

// scoresTable renders the leaderboard; bold headings only on a terminal,
// so that scripts reading plain output see no escape sequences. empty is
// said in place of rows when there are none.
func scoresTable(entries []wire.ScoreEntry, size int, kind store.Kind, styled bool, empty string) string {
	var b strings.Builder
	title := fmt.Sprintf("Leaderboard %d×%d, %s games", size, size, kind)
	head := fmt.Sprintf("%4s  %-20s %9s %7s %7s  %s", "RANK", "NAME", "SCORE", "MAX", "MOVES", "ENDED")
	if styled {
		title, head = "\x1b[1m"+title+"\x1b[0m", "\x1b[1m"+head+"\x1b[0m"
	}
	b.WriteString(title + "\n" + head + "\n")
	if len(entries) == 0 {
		b.WriteString("  (" + empty + ")\n")
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name
	}
	alike := store.LookAlikes(names)
	for i, e := range entries {
		ended := "playing"
		if e.Ended != nil {
			ended = e.Ended.UTC().Format("2006-01-02 15:04")
		}
		name := padCells(e.Name, 20)
		if alike[i] {
			tag := store.LookAlikeTag(e.Player)
			name = padCells(ansi.Truncate(e.Name, 20-1-len(tag), "…")+" "+tag, 20)
		}
		fmt.Fprintf(&b, "%4d  %s %9d %7d %7d  %s\n", e.Rank, name, e.Score, e.MaxTile, e.Moves, ended)
	}
	return b.String()
}

// padCells cuts or pads s to exactly n terminal cells, so that wide
// characters keep the columns aligned.
func padCells(s string, n int) string {
	s = ansi.Truncate(s, n, "…")
	return s + strings.Repeat(" ", max(0, n-ansi.StringWidth(s)))
}

// isSet reports whether the command line gave flag name.
func isSet(fs *commandFlags, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
