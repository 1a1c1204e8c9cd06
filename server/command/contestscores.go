package command

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/wire"
)

// runDailyScores is `scores --daily`: a day's challenge of one size, and
// once the day is over its seed, so that every game of it can be
// replayed and verified by anyone.
func (t *Table) runDailyScores(sess *session.Session, day string, size, limit int, asJSON bool) int {
	if day == "" {
		day = t.games.Today()
	}
	if _, err := game.ParseDay(day); err != nil {
		fmt.Fprintf(sess.Stderr(), "scores: --date %.30q: not a day; write it YYYY-MM-DD (UTC)\n", cleanArg(day))
		return wire.ExitUsage
	}
	if day > t.games.Today() {
		fmt.Fprintf(sess.Stderr(), "scores: --date %s: that day has not come yet (today is %s, UTC)\n", day, t.games.Today())
		return wire.ExitUsage
	}
	ctx, cancel := context.WithTimeout(sess.Context(), readTimeout)
	defer cancel()
	rows, err := t.games.DailyBoard(ctx, day, size, limit)
	if err != nil {
		t.log.Error("daily board", "day", day, "size", size, "err", err)
		fmt.Fprintln(sess.Stderr(), "ssh2048: could not read the leaderboard; try again later.")
		return wire.ExitError
	}
	seed := ""
	switch v, err := t.games.DailySeed(ctx, day, size); {
	case err == nil:
		seed = strconv.FormatUint(v, 10)
	case !errors.Is(err, game.ErrNotYet):
		t.log.Error("daily seed", "day", day, "size", size, "err", err)
		fmt.Fprintln(sess.Stderr(), "ssh2048: could not read the day's seed; try again later.")
		return wire.ExitError
	}
	entries := make([]wire.ScoreEntry, len(rows))
	for i, r := range rows {
		entries[i] = wire.ScoreEntry{
			Rank: r.Rank, Name: r.Name, Player: store.ShortID(r.Fingerprint), Score: r.Score, MaxTile: r.MaxTile, Moves: r.Moves,
			Won: r.Won, Ended: r.Ended, GameID: r.GameID, Size: size, Kind: string(store.KindHuman),
			Contest: "daily:" + day, Seed: seed,
		}
	}
	if asJSON {
		return t.writeJSON(sess, entries)
	}
	_, _, hasPty := sess.Pty()
	var b strings.Builder
	b.WriteString(scoresTable(entries, size, store.KindHuman, hasPty, noGames))
	table := b.String()
	// The title says which board this is.
	table = strings.Replace(table, fmt.Sprintf("Leaderboard %d×%d, human games", size, size),
		fmt.Sprintf("Daily challenge %s, %d×%d", day, size, size), 1)
	if seed != "" {
		table += fmt.Sprintf("The day is over; its seed was %s. Replay or check any game of it: export GAME, verify GAME.\n", seed)
	} else {
		table += "The day is still on: its seed is published when it ends (00:00 UTC).\n"
	}
	_, _ = sess.Write([]byte(table))
	return wire.ExitOK
}

// runRaceScores is `scores --races`: the race ratings, or with --bots
// the races with bots, which rate no one and rank by wins.
func (t *Table) runRaceScores(sess *session.Session, bots bool, limit int, asJSON bool) int {
	ctx, cancel := context.WithTimeout(sess.Context(), readTimeout)
	defer cancel()
	_, _, styled := sess.Pty()
	bold := func(t string) string {
		if styled {
			return "\x1b[1m" + t + "\x1b[0m"
		}
		return t
	}
	var b strings.Builder
	if bots {
		rows, err := t.games.BotRaceBoard(ctx, limit)
		if err != nil {
			t.log.Error("bot race board", "err", err)
			fmt.Fprintln(sess.Stderr(), "ssh2048: could not read the leaderboard; try again later.")
			return wire.ExitError
		}
		entries := make([]wire.BotRaceEntry, len(rows))
		for i, r := range rows {
			entries[i] = wire.BotRaceEntry{Rank: r.Rank, Name: r.Name, Player: store.ShortID(r.Fingerprint), Races: r.Races, Wins: r.Wins, Best: r.Best}
		}
		if asJSON {
			return t.writeJSON(sess, entries)
		}
		b.WriteString(bold("Races with bots (unrated), by wins") + "\n")
		b.WriteString(bold(fmt.Sprintf("%4s  %-20s %7s %7s %9s", "RANK", "NAME", "RACES", "WINS", "BEST")) + "\n")
		if len(entries) == 0 {
			b.WriteString("  (no races yet)\n")
		}
		for _, e := range entries {
			fmt.Fprintf(&b, "%4d  %s %7d %7d %9d\n", e.Rank, padCells(e.Name, 20), e.Races, e.Wins, e.Best)
		}
		_, _ = sess.Write([]byte(b.String()))
		return wire.ExitOK
	}
	rows, err := t.games.RatingBoard(ctx, limit)
	if err != nil {
		t.log.Error("rating board", "err", err)
		fmt.Fprintln(sess.Stderr(), "ssh2048: could not read the leaderboard; try again later.")
		return wire.ExitError
	}
	entries := make([]wire.RatingEntry, len(rows))
	for i, r := range rows {
		entries[i] = wire.RatingEntry{Rank: r.Rank, Name: r.Name, Player: store.ShortID(r.Fingerprint),
			Rating: round1(r.Rating.Rating), Deviation: round1(r.Deviation), Races: r.Races}
	}
	if asJSON {
		return t.writeJSON(sess, entries)
	}
	b.WriteString(bold("Race ratings (Glicko-2)") + "\n")
	b.WriteString(bold(fmt.Sprintf("%4s  %-20s %7s %5s %7s", "RANK", "NAME", "RATING", "±", "RACES")) + "\n")
	if len(entries) == 0 {
		b.WriteString("  (no rated races yet)\n")
	}
	for _, e := range entries {
		fmt.Fprintf(&b, "%4d  %s %7.0f %5.0f %7d\n", e.Rank, padCells(e.Name, 20), e.Rating, e.Deviation, e.Races)
	}
	_, _ = sess.Write([]byte(b.String()))
	return wire.ExitOK
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }

// writeJSON writes v as `scores --json` does.
func (t *Table) writeJSON(sess *session.Session, v any) int {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // names like "<3" stay readable
	if err := enc.Encode(v); err != nil {
		return wire.ExitError
	}
	_, _ = sess.Write(b.Bytes())
	return wire.ExitOK
}
