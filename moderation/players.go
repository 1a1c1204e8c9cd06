package moderation

import (
	"context"
	"fmt"
	"strings"

	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/wire"
)

// maxList bounds --limit of players and audit.
const maxList = 1000

func playersCommand() subcommand {
	return subcommand{
		name:    "players",
		args:    "[--search TEXT] [--limit 50]",
		summary: "list players, last seen first, whose name or key contains TEXT",
		run:     runPlayers,
	}
}

func runPlayers(ctx context.Context, e *Env, fs *flags) int {
	search := fs.String("search", "", "a part of the name (any case) or of the key's fingerprint")
	limit := fs.Int("limit", 50, "at most this many (1 to 1000)")
	if code, ok := fs.parse(0); !ok {
		return code
	}
	if *limit < 1 || *limit > maxList {
		return fs.mistake("--limit %d: must be 1 to %d", *limit, maxList)
	}
	found, err := e.Store.SearchPlayers(ctx, store.CleanText(*search), *limit)
	if err != nil {
		return e.fail("players", err)
	}
	if len(found) == 0 {
		fmt.Fprintln(e.Out, "no such players")
	}
	for _, p := range found {
		fmt.Fprintf(e.Out, "%s, %d games, last seen %s%s\n", who(p.Player), p.Games, when(p.LastSeen), marks(p))
	}
	return wire.ExitOK
}

// marks is what a listing says of a player's standing.
func marks(p store.PlayerInfo) string {
	var m []string
	if p.Admin {
		m = append(m, "admin")
	}
	if p.Banned {
		m = append(m, "banned")
	}
	if p.Hidden {
		m = append(m, "hidden")
	}
	if !p.NameLocked.IsZero() {
		m = append(m, "name locked until "+when(p.NameLocked))
	}
	if len(m) == 0 {
		return ""
	}
	return " [" + strings.Join(m, ", ") + "]"
}
