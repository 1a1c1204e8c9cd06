package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/engine/ai"
)

func runAI(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("ai", `usage: ssh2048 ai [flags]

Plays seeded games headless, on all cores at once, at the search budget the
server's hints and autoplay use, and reports how far each got. Game i is
played from seed S+i, so a run can be repeated (the search is bounded in
time, so a loaded machine may still play a game differently).`, stdout, stderr)
	games := fs.Int("games", 20, "number of games")
	seed := fs.Uint64("seed", 1, "seed of the first game")
	size := fs.Int("size", 4, "board size, 3 to 8")
	asJSON := fs.Bool("json", false, "print one JSON object instead of text")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if *size < engine.MinSize || *size > engine.MaxSize {
		fmt.Fprintf(stderr, "ssh2048 ai: --size %d: want %d to %d\n", *size, engine.MinSize, engine.MaxSize)
		return 2
	}
	if *games < 1 || *games > maxAIGames {
		fmt.Fprintf(stderr, "ssh2048 ai: --games %d: want 1 to %d\n", *games, maxAIGames)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg := ai.RunConfig{Games: *games, Seed: *seed, Size: *size}
	if !*asJSON {
		fmt.Fprintf(stdout, "%s of %d×%d from seed %d, %s per move\n", count(*games, "game"), *size, *size, *seed, ai.DefaultBudget().Time)
		cfg.Progress = func(g ai.GameReport) {
			fmt.Fprintf(stdout, "seed %-6d max tile %-6d score %-8d moves %-6d %6.1fs\n", g.Seed, g.MaxTile, g.Score, g.Moves, g.Seconds)
		}
	}
	report, err := ai.PlayGames(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "ssh2048 ai: %v\n", err)
		if len(report.Games) == 0 {
			return 1
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		if err := enc.Encode(report); err != nil {
			fmt.Fprintf(stderr, "ssh2048 ai: %v\n", err)
			return 1
		}
	} else {
		writeAISummary(stdout, report, *size)
	}
	if err != nil {
		return 1
	}
	return 0
}

// maxAIGames bounds --games: a report is kept for each game, made room
// for up front, and this many take days of every core already. Unbounded,
// a mistyped count ended the process out of memory with a stack dump.
const maxAIGames = 100_000

// writeAISummary prints how many games reached each tile from the win
// target up, and the speed of the search.
func writeAISummary(w io.Writer, r ai.Report, size int) {
	fmt.Fprintf(w, "\n%s:", count(len(r.Games), "game"))
	for exp := engine.WinExponent(size); ; exp++ {
		reached := 0
		for _, g := range r.Games {
			if g.MaxTile >= engine.Value(exp) {
				reached++
			}
		}
		if reached == 0 {
			break
		}
		fmt.Fprintf(w, " %d in %d%%,", engine.Value(exp), 100*reached/len(r.Games))
	}
	fmt.Fprintf(w, " %.0f moves/s, think time p50 %.1f ms, p99 %.1f ms\n", r.MovesPerSecond, r.ThinkMsP50, r.ThinkMsP99)
}

// count is "1 game", "2 games".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
