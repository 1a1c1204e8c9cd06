package moderation

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/ssh2048/ssh2048/review"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/wire"
)

func playerCommand() subcommand {
	return subcommand{
		name:    "player",
		args:    "PLAYER",
		summary: "an account's keys, names, standing, accuracy, bans, hidden games, audit",
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
	if err := printAccuracy(ctx, e, p.ID); err != nil {
		return e.fail("player", err)
	}
	for _, k := range d.Keys {
		fmt.Fprintf(e.Out, "key: %s %s, added %s, last used %s\n", store.CleanText(k.KeyType), store.CleanText(k.Fingerprint), when(k.Added), when(k.LastUsed))
	}
	for _, n := range d.Names {
		held := "now"
		if !n.Released.IsZero() {
			held = "until " + when(n.Released)
		}
		fmt.Fprintf(e.Out, "name: %q from %s %s\n", n.Name, when(n.Claimed), held)
	}
	for _, b := range d.Bans {
		fmt.Fprintf(e.Out, "ban: %s %s, by %s on %s: %s\n", describe(b), untilText(b), store.CleanText(b.By), when(b.At), store.CleanText(b.Reason))
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

// printAccuracy tells the player's mean accuracy over the stored reviews
// of their games played by hand: one signal for a moderator's judgement,
// never a verdict (a strong player is accurate too). It starts no review:
// a review is the AI's searches of every move, which an admin's look at a
// player must not set going nor put before the players' own.
func printAccuracy(ctx context.Context, e *Env, playerID int64) error {
	rs, ok := e.Store.(store.ReviewStore)
	if !ok {
		return nil
	}
	sum, reviewed := 0.0, 0
	games, err := rs.PlayerReviews(ctx, playerID, review.Version, func(gameID int64, b []byte) error {
		a, err := review.ParseAccuracy(b)
		if err != nil {
			return fmt.Errorf("review of game %d: %w", gameID, err)
		}
		sum += a
		reviewed++
		return nil
	})
	if err != nil {
		return err
	}
	switch {
	case games == 0:
		fmt.Fprintln(e.Out, "accuracy: no ended game played by hand")
		return nil
	case reviewed == 0:
		fmt.Fprintf(e.Out, "accuracy: none reviewed of %d games played by hand\n", games)
		return nil
	}
	fmt.Fprintf(e.Out, "accuracy: %.1f, the mean over %d reviewed of %d games played by hand\n", sum/float64(reviewed), reviewed, games)
	return nil
}
