package tui

import (
	"context"
	"errors"

	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/store"
)

// SeatStore is the game screen's Store over the game service: the games
// of the seat's player (a guest's live in memory) and the human
// leaderboard. The SSH server and `ssh2048 play` both use it.
func SeatStore(svc *game.Service, seat *game.Seat) Store {
	return seatStore{svc: svc, seat: seat}
}

type seatStore struct {
	svc  *game.Service
	seat *game.Seat
}

func (s seatStore) Open(ctx context.Context, size int, fresh bool) (Play, error) {
	p, err := s.seat.Resume(ctx, size, fresh)
	if err != nil {
		return nil, err
	}
	return p, nil
}

func (s seatStore) Standings(ctx context.Context, size, limit int) ([]Standing, *Standing, error) {
	var rows []store.Entry
	if limit > 0 { // 0: the player's row only, for the header's rank
		var err error
		if rows, err = s.svc.Leaderboard(ctx, size, store.KindHuman, limit); err != nil {
			return nil, nil, err
		}
	}
	e, err := s.svc.Rank(ctx, s.seat.Player(), size, store.KindHuman)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return standingsOf(rows), nil, nil
	case err != nil:
		return nil, nil, err
	}
	all := standingsOf(append(rows, e))
	return all[:len(rows)], &all[len(rows)], nil
}

// standingsOf turns leaderboard rows into the screen's, with a tag beside
// the names that look like another on screen (store.LookAlikes). The player's
// own row may come twice (in the top and below it): once is counted.
func standingsOf(rows []store.Entry) []Standing {
	names := make([]string, 0, len(rows))
	seen := make(map[int64]bool, len(rows))
	for _, r := range rows {
		if !seen[r.PlayerID] {
			seen[r.PlayerID] = true
			names = append(names, r.Name)
		}
	}
	alike := make(map[string]bool, len(names))
	for i, a := range store.LookAlikes(names) {
		alike[names[i]] = alike[names[i]] || a
	}
	out := make([]Standing, len(rows))
	for i, r := range rows {
		out[i] = Standing{Rank: r.Rank, Player: r.Name, Score: r.Score, MaxTile: r.MaxTile, GameID: r.GameID, Ended: r.Ended != nil}
		if alike[r.Name] {
			out[i].Tag = store.LookAlikeTag(store.ShortID(r.Fingerprint))
		}
	}
	return out
}
