package game

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/ssh2048/ssh2048/store"
)

// What the service tells those who only look: operators' metrics (Stats)
// and the public web pages (the boards, a player's bests, the races in
// the public lobbies). None of it carries a seed or a guest.

// Stats is what the service holds right now, for an operator's metrics.
type Stats struct {
	Playing    int           // games held by a session (guests' not counted)
	Spectators int           // spectators watching them
	Races      [Finished]int // races by phase, indexed by Waiting, Countdown, Running
	Rooms      int           // private rooms among them
}

// Stats counts the games in play, their spectators and the races.
func (s *Service) Stats() Stats {
	var st Stats
	s.mu.Lock()
	st.Playing = len(s.byID)
	feeds := make([]*feed, 0, len(s.feeds))
	for _, f := range s.feeds {
		feeds = append(feeds, f)
	}
	races := make([]*race, 0, len(s.lobbies)+len(s.rooms))
	for _, r := range s.lobbies {
		races = append(races, r)
	}
	for _, r := range s.rooms {
		races = append(races, r)
	}
	st.Rooms = len(s.rooms)
	s.mu.Unlock()
	if n := s.raceNodes; n != nil {
		// Several nodes: each counts the races it runs.
		for _, r := range n.owned() {
			races = append(races, r)
			if r.roomName() != "" {
				st.Rooms++
			}
		}
	}
	// A race's lock is never taken under the service's.
	for _, f := range feeds {
		snap, _ := f.get()
		st.Spectators += snap.Watchers
	}
	for _, r := range races {
		if ph := r.currentPhase(); ph < Finished {
			st.Races[ph]++
		}
	}
	return st
}

// Lobbies returns the races of the public lobbies, one per size at most,
// smallest size first. Private rooms are not listed: their word is their
// key. With several nodes, the lobbies of every node: a race that takes
// racers before one that runs.
func (s *Service) Lobbies() []RaceView {
	s.mu.Lock()
	races := make([]*race, 0, len(s.lobbies))
	for _, r := range s.lobbies {
		races = append(races, r)
	}
	s.mu.Unlock()
	out := make([]RaceView, 0, len(races))
	for _, r := range races {
		v, version := r.view.get()
		v.Version = version
		out = append(out, v)
	}
	if n := s.raceNodes; n != nil {
		bySize := map[int]RaceView{}
		for _, v := range n.lobbyViews() {
			if o, ok := bySize[v.Size]; !ok || v.Phase <= Countdown && o.Phase > Countdown {
				bySize[v.Size] = v
			}
		}
		for _, v := range bySize {
			out = append(out, v)
		}
	}
	slices.SortFunc(out, func(a, b RaceView) int { return a.Size - b.Size })
	return out
}

// RatingBoard lists the best race ratings, highest first. Names are
// cleaned and printable, as Leaderboard's are.
func (s *Service) RatingBoard(ctx context.Context, limit int) ([]store.RatingEntry, error) {
	rows, err := s.store.RatingBoard(ctx, limit)
	for i := range rows {
		rows[i].Name = printable(store.DisplayName(rows[i].Name, rows[i].Fingerprint))
	}
	return rows, err
}

// ErrNoPlayer: no player has that id.
var ErrNoPlayer = errors.New("no such player")

// PlayerByID returns the player with that store id (never a guest: they
// are not stored), or ErrNoPlayer.
func (s *Service) PlayerByID(ctx context.Context, id int64) (Player, error) {
	p, err := s.store.PlayerByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return Player{}, fmt.Errorf("player %d: %w", id, ErrNoPlayer)
	}
	if err != nil {
		return Player{}, err
	}
	return Player{ID: p.ID, Name: printable(p.Name), Fingerprint: p.Fingerprint}, nil
}

// PlayerGames lists the player's games, newest first, at most limit.
func (s *Service) PlayerGames(ctx context.Context, p Player, limit int) ([]store.GameSummary, error) {
	if p.Guest {
		return nil, nil
	}
	return s.store.PlayerGames(ctx, p.ID, limit)
}
