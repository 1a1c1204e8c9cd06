package tui

import (
	"context"
	"errors"

	"github.com/ssh2048/ssh2048/db"
	"github.com/ssh2048/ssh2048/game"
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
	var rows []db.Entry
	if limit > 0 { // 0: the player's row only, for the header's rank
		var err error
		if rows, err = s.svc.Leaderboard(ctx, size, db.KindHuman, limit); err != nil {
			return nil, nil, err
		}
	}
	top := make([]Standing, len(rows))
	for i, r := range rows {
		top[i] = standingOf(r)
	}
	e, err := s.svc.Rank(ctx, s.seat.Player(), size, db.KindHuman)
	switch {
	case errors.Is(err, db.ErrNotFound):
		return top, nil, nil
	case err != nil:
		return nil, nil, err
	}
	me := standingOf(e)
	return top, &me, nil
}

func standingOf(e db.Entry) Standing {
	return Standing{Rank: e.Rank, Player: e.Name, Score: e.Score, MaxTile: e.MaxTile}
}
