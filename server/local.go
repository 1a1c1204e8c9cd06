package server

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/ssh2048/ssh2048/tui"
)

// LocalPlayer identifies someone playing in their own terminal
// (`ssh2048 play`) rather than over SSH.
type LocalPlayer struct {
	Fingerprint string // of the user's SSH public key, so that local and SSH play are one player
	KeyType     string
	Name        string
}

// LocalScreen returns the game screen's options for a player at a local
// terminal, against the same store the server uses. Call the returned
// function when the screen has ended: it releases the player's games.
//
// Only this process's sessions share the one-writer registry; a server
// process playing the same game at the same time is kept out by the
// store's own check (db.ErrConflict), which the screen reports as a
// takeover.
func LocalScreen(ctx context.Context, store Store, h tui.Hinter, lp LocalPlayer, log *slog.Logger) (tui.Options, func(), error) {
	if log == nil {
		log = slog.Default()
	}
	dp, err := store.UpsertPlayer(ctx, lp.Fingerprint, lp.KeyType, lp.Name)
	if err != nil {
		return tui.Options{}, nil, fmt.Errorf("local player: %w", err)
	}
	srv := &Server{cfg: Config{Store: store}, store: store, log: log, sessions: make(map[*session]struct{})}
	player := Player{ID: dp.ID, Name: dp.Name, Fingerprint: dp.Fingerprint}
	games := &Games{srv: srv, player: player}
	return screenOptions(ctx, store, h, TUIEnv{Player: player, Games: games}), games.closeAll, nil
}
