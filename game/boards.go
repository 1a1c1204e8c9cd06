package game

import (
	"context"
	"errors"
	"time"

	"github.com/ssh2048/ssh2048/db"
)

// ErrNoBoard: the store keeps no such board (a store written before it).
var ErrNoBoard = errors.New("this store keeps no such board")

// The boards below are optional for a Store: one that lacks them answers
// ErrNoBoard, and the screens and commands say so.
type (
	botRaceBoarder interface {
		BotRaceBoard(ctx context.Context, limit int) ([]db.BotRaceEntry, error)
	}
	contestRanker interface {
		ContestRank(ctx context.Context, playerID int64, contest string, size int) (db.Entry, int, error)
	}
)

// Rating returns the player's race rating, or db.ErrNotFound when they
// have none yet (guests never do).
func (s *Service) Rating(ctx context.Context, p Player) (db.Rating, error) {
	if p.Guest {
		return db.Rating{}, db.ErrNotFound
	}
	rs, err := s.store.Ratings(ctx, []int64{p.ID})
	if err != nil {
		return db.Rating{}, err
	}
	r, ok := rs[p.ID]
	if !ok {
		return db.Rating{}, db.ErrNotFound
	}
	return r, nil
}

// BotRaceBoard ranks the players of races with bots, which rate no one:
// by wins, then best score.
func (s *Service) BotRaceBoard(ctx context.Context, limit int) ([]db.BotRaceEntry, error) {
	b, ok := s.store.(botRaceBoarder)
	if !ok {
		return nil, ErrNoBoard
	}
	rows, err := b.BotRaceBoard(ctx, limit)
	for i := range rows {
		rows[i].Name = printable(db.DisplayName(rows[i].Name, rows[i].Fingerprint))
	}
	return rows, err
}

// DailyRank returns the player's game of a day's challenge of one size
// with its rank, and how many played it; db.ErrNotFound when they have
// not (guests never have).
func (s *Service) DailyRank(ctx context.Context, p Player, day string, size int) (db.Entry, int, error) {
	if p.Guest {
		return db.Entry{}, 0, db.ErrNotFound
	}
	r, ok := s.store.(contestRanker)
	if !ok {
		return db.Entry{}, 0, ErrNoBoard
	}
	e, n, err := r.ContestRank(ctx, p.ID, dailyContest(day), size)
	if err == nil {
		e.Name = printable(db.DisplayName(e.Name, e.Fingerprint))
	}
	return e, n, err
}

// Now is the service's clock (WithClock): what screens count the day's
// and the race's time left by.
func (s *Service) Now() time.Time { return s.now() }
