package moderation

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/ssh2048/ssh2048/wire"
)

func playerCommand() subcommand {
	return subcommand{
		name:    "player",
		args:    "PLAYER",
		summary: "an account's keys, names, standing, bans, hidden games and admin actions",
		run:     runPlayer,
	}
}

func runPlayer(ctx context.Context, e *Env, fs *flags) int {
	if code, ok := fs.parse(1); !ok {
		return code
	}
	p, code, ok := e.player(ctx, "player", fs.pos[0])
	if !ok {
		return code
	}
	d, err := e.Store.PlayerDetail(ctx, p.ID)
	if err != nil {
		return e.fail("player", err)
	}
	fmt.Fprintf(e.Out, "%s, %d games, first seen %s, last seen %s%s\n", who(d.Player), d.Games, when(d.FirstSeen), when(d.LastSeen), marks(d.PlayerInfo))
	for _, k := range d.Keys {
		fmt.Fprintf(e.Out, "key: %s %s, added %s, last used %s\n", k.KeyType, k.Fingerprint, when(k.Added), when(k.LastUsed))
	}
	for _, n := range d.Names {
		held := "now"
		if !n.Released.IsZero() {
			held = "until " + when(n.Released)
		}
		fmt.Fprintf(e.Out, "name: %q from %s %s\n", n.Name, when(n.Claimed), held)
	}
	for _, b := range d.Bans {
		fmt.Fprintf(e.Out, "ban: %s %s, by %s on %s: %s\n", describe(b), untilText(b), b.By, when(b.At), b.Reason)
	}
	if len(d.HiddenGames) > 0 {
		ids := make([]string, len(d.HiddenGames))
		for i, id := range d.HiddenGames {
			ids[i] = strconv.FormatInt(id, 10)
		}
		fmt.Fprintf(e.Out, "hidden games: %s\n", strings.Join(ids, " "))
	}
	for _, a := range d.Actions {
		printAudit(e, a)
	}
	return wire.ExitOK
}
