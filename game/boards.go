package game

import (
	"context"
	"errors"
	"time"

	"github.com/ssh2048/ssh2048/store"
)

// ErrNoBoard: the store keeps no such board (a store written before it).
var ErrNoBoard = errors.New("this store keeps no such board")

// Rating returns the player's race rating, or store.ErrNotFound when they
// have none yet (guests never do).
func (s *Service) Rating(ctx context.Context, p Player) (store.Rating, error) {
	if p.Guest {
		return store.Rating{}, store.ErrNotFound
	}
	rs, err := s.store.Ratings(ctx, []int64{p.ID})
	if err != nil {
		return store.Rating{}, err
	}
	r, ok := rs[p.ID]
	if !ok {
		return store.Rating{}, store.ErrNotFound
	}
	return r, nil
}

// BotRaceBoard ranks the players of races with bots, which rate no one:
// by wins, then best score.
func (s *Service) BotRaceBoard(ctx context.Context, limit int) ([]store.BotRaceEntry, error) {
	b, ok := s.store.(store.BotRaceBoarder)
	if !ok {
		return nil, ErrNoBoard
	}
	rows, err := b.BotRaceBoard(ctx, limit)
	for i := range rows {
		rows[i].Name = store.DisplayName(rows[i].Name, rows[i].Fingerprint)
	}
	return rows, err
}

// DailyRank returns the player's game of a day's challenge of one size
// with its rank, and how many played it; store.ErrNotFound when they have
// not (guests never have).
func (s *Service) DailyRank(ctx context.Context, p Player, day string, size int) (store.Entry, int, error) {
	if p.Guest {
		return store.Entry{}, 0, store.ErrNotFound
	}
	r, ok := s.store.(store.ContestRanker)
	if !ok {
		return store.Entry{}, 0, ErrNoBoard
	}
	e, n, err := r.ContestRank(ctx, p.ID, dailyContest(day), size)
	if err == nil {
		e.Name = store.DisplayName(e.Name, e.Fingerprint)
	}
	return e, n, err
}

// Now is the service's clock (WithClock): what screens count the day's
// and the race's time left by.
func (s *Service) Now() time.Time { return s.now() }
