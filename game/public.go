package game

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/ssh2048/ssh2048/store"
)

// What the service tells those who only look: operators' metrics (Stats)
// and the public web pages (the boards, a player's bests). None of it
// carries a seed or a guest. Races tell their own (package race).

// Stats is what the service holds right now, for an operator's metrics.
type Stats struct {
	Playing    int // games held by a session (guests' not counted)
	Spectators int // spectators watching them
}

// Stats counts the games in play and their spectators.
func (s *Service) Stats() Stats {
	var st Stats
	s.mu.Lock()
	st.Playing = len(s.byID)
	feeds := make([]*feed, 0, len(s.feeds))
	for _, f := range s.feeds {
		feeds = append(feeds, f)
	}
	s.mu.Unlock()
	for _, f := range feeds {
		snap, _ := f.Get()
		st.Spectators += snap.Watchers
	}
	return st
}

// RatingBoard lists the best race ratings, highest first. Names are
// cleaned, as Leaderboard's are.
func (s *Service) RatingBoard(ctx context.Context, limit int) ([]store.RatingEntry, error) {
	rows, err := s.store.RatingBoard(ctx, limit)
	for i := range rows {
		rows[i].Name = store.DisplayName(rows[i].Name, rows[i].Fingerprint)
	}
	return rows, err
}

// ErrNoPlayer: no player has that id.
var ErrNoPlayer = errors.New("no such player")

// MergedError is PlayerByID's answer for the id of an account a link
// merged into another (store.Accounts.MergedInto): no player has the id
// now (it is ErrNoPlayer too), but Into, the account it is part of now,
// is where its pages went.
type MergedError struct{ ID, Into int64 }

func (e *MergedError) Error() string {
	return fmt.Sprintf("player %d: merged into %d", e.ID, e.Into)
}

func (e *MergedError) Unwrap() error { return ErrNoPlayer }

// PlayerByID returns the player with that store id (never a guest: they
// are not stored), or ErrNoPlayer, a *MergedError where a link merged the
// account away.
func (s *Service) PlayerByID(ctx context.Context, id int64) (Player, error) {
	p, err := s.store.PlayerByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return Player{}, s.mergedInto(ctx, id)
	}
	if err != nil {
		return Player{}, err
	}
	return Player{ID: p.ID, Name: store.DisplayName(p.Name, p.Fingerprint), Fingerprint: p.Fingerprint}, nil
}

// mergedInto is PlayerByID's error for an id that is no player's.
func (s *Service) mergedInto(ctx context.Context, id int64) error {
	as, ok := s.store.(store.Accounts)
	if !ok {
		return fmt.Errorf("player %d: %w", id, ErrNoPlayer)
	}
	into, err := as.MergedInto(ctx, store.AccountID(id))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("player %d: %w", id, ErrNoPlayer)
	case err != nil:
		return fmt.Errorf("player %d: %w", id, err)
	}
	return &MergedError{ID: id, Into: int64(into)}
}

// PlayerGames lists the player's games as anyone may see them (the web
// site's player pages), newest first, at most limit: not the games an
// admin hid, which only their player's own history lists.
func (s *Service) PlayerGames(ctx context.Context, p Player, limit int) ([]store.GameSummary, error) {
	if p.Guest {
		return nil, nil
	}
	games, err := s.store.PlayerGames(ctx, p.ID, limit)
	return slices.DeleteFunc(games, func(g store.GameSummary) bool { return g.Hidden }), err
}
