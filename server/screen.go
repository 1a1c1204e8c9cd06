package server

import (
	"context"
	"errors"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	"github.com/ssh2048/ssh2048/db"
	"github.com/ssh2048/ssh2048/tui"
)

// gameScreen is the default TUIFunc: package tui's game screen over the
// session's games, with hints and autoplay from h when h is not nil.
func gameScreen(store Store, h tui.Hinter) TUIFunc {
	return func(sess ssh.Session, env TUIEnv) tea.Model {
		return tui.New(screenOptions(sess.Context(), store, h, env))
	}
}

// screenOptions sets up the game screen for one player: their games (or a
// guest's, which live in memory) and the human leaderboard.
func screenOptions(ctx context.Context, store Store, h tui.Hinter, env TUIEnv) tui.Options {
	board := standings{store: store, player: env.Player}
	opts := tui.Options{
		Hinter:      h,
		Player:      env.Player.Name,
		Guest:       env.Player.Guest,
		GuestNotice: guestHint,
		Context:     ctx,
	}
	if h != nil {
		opts.Hinter = sessionHinter{h}
	}
	if env.Player.Guest {
		opts.Store = tui.NewGuestStore(board, nil)
	} else {
		opts.Store = screenStore{games: env.Games, store: store, standings: board}
	}
	return opts
}

// screenStore gives the game screen a player's games, one per size.
type screenStore struct {
	games *Games
	store Store
	standings
}

// Open resumes the player's game of that size: the newest unfinished one,
// human or, once the AI has helped, assisted. A fresh game is human until
// the AI helps.
func (s screenStore) Open(ctx context.Context, size int, fresh bool) (tui.Game, error) {
	kind := db.KindHuman
	if !fresh {
		kind = s.resumeKind(ctx, size)
	}
	p, err := s.games.Open(ctx, size, kind, fresh)
	if err != nil {
		return nil, err
	}
	return p, nil
}

func (s screenStore) resumeKind(ctx context.Context, size int) db.Kind {
	games, err := s.store.PlayerGames(ctx, s.games.player.ID, 100)
	if err != nil {
		s.games.srv.log.Warn("list games", "player", s.games.player.ID, "err", err)
		return db.KindHuman
	}
	for _, g := range games { // newest first
		if g.Size == size && g.EndedAt == nil && (g.Kind == db.KindHuman || g.Kind == db.KindAssisted) {
			return g.Kind
		}
	}
	return db.KindHuman
}

// standings reads the human leaderboard for the game screen.
type standings struct {
	store  Store
	player Player
}

func (b standings) Standings(ctx context.Context, size, limit int) ([]tui.Standing, *tui.Standing, error) {
	rows, err := b.store.Leaderboard(ctx, size, db.KindHuman, limit)
	if err != nil {
		return nil, nil, err
	}
	if b.player.Guest {
		return standingsOf(rows), nil, nil
	}
	e, err := b.store.PlayerRank(ctx, b.player.ID, size, db.KindHuman)
	switch {
	case errors.Is(err, db.ErrNotFound):
		return standingsOf(rows), nil, nil
	case err != nil:
		return nil, nil, err
	}
	all := standingsOf(append(rows, e))
	return all[:len(rows)], &all[len(rows)], nil
}

// standingsOf turns leaderboard rows into the screen's, with a tag beside
// the names that look like another on screen (db.LookAlikes). The player's
// own row may come twice (in the top and below it): once is counted.
func standingsOf(rows []db.Entry) []tui.Standing {
	names := make([]string, 0, len(rows))
	seen := make(map[int64]bool, len(rows))
	for _, r := range rows {
		if !seen[r.PlayerID] {
			seen[r.PlayerID] = true
			names = append(names, displayName(r))
		}
	}
	alike := make(map[string]bool, len(names))
	for i, a := range db.LookAlikes(names) {
		alike[names[i]] = alike[names[i]] || a
	}
	out := make([]tui.Standing, len(rows))
	for i, r := range rows {
		name := displayName(r)
		out[i] = tui.Standing{Rank: r.Rank, Player: name, Score: r.Score, MaxTile: r.MaxTile}
		if alike[name] {
			out[i].Tag = lookAlikeTag(db.ShortID(r.Fingerprint))
		}
	}
	return out
}
