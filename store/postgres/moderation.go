package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ssh2048/ssh2048/store/internal/moderation"
)

// The writes of store.Moderator (package store/internal/moderation, the
// SQL both stores share) run in transactions of their own on the read
// pool, not in the writer's groups (a refused one would spoil a group of
// moves), each under one advisory lock that every node takes for them:
// the checks a write makes (the last admin, a ban already in force) hold
// until its change and its audit row commit together, on every node at
// once.

// newModeration is the store's moderation methods.
func (s *Store) newModeration() moderation.Moderator[pgx.Tx] {
	return moderation.New(s.modTx, func(tx pgx.Tx) moderation.Querier { return pgQuerier{tx} }, pgQuerier{s.pool},
		moderation.Config{
			Position:      "strpos",
			BansChanged:   notifyBans,
			Hidden:        func(playerID, gameID int64, hide bool) { s.ranks.Hidden(playerID, gameID, hide) },
			HiddenChanged: s.notifyHidden,
		})
}

// modTx runs fn in a transaction of its own under the moderation lock,
// with the time in unix microseconds.
func (s *Store) modTx(ctx context.Context, fn func(ctx context.Context, tx pgx.Tx, now int64) error) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('ssh2048 moderation'))`); err != nil {
			return err
		}
		return fn(ctx, tx, time.Now().UnixMicro())
	})
}

// bansTopic is the bus topic of a change of bans: every node's ban list
// (package moderation) reads the bans again at once.
const bansTopic = "bans"

// notifyBans tells every node, when tx commits, that the bans changed.
func notifyBans(ctx context.Context, tx moderation.Querier) error {
	_, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, channel, bansTopic+" ")
	return err
}

// notifyHidden tells every other node, when tx commits, of a hide or
// unhide, on the ranks' topic (see hiddenNews): their ranks follow it as
// this node's do, the games they are playing included, which the store's
// bests alone would not stop offering their scores.
func (s *Store) notifyHidden(ctx context.Context, tx moderation.Querier, playerID, gameID int64, hide bool) error {
	_, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, channel, TopicRanks+" "+s.node+"\n"+hiddenNews(playerID, gameID, hide))
	return err
}

// hiddenNews is the news of a hide on the ranks' topic, after the node's
// name and a newline: "hidden PLAYER GAME true|false".
func hiddenNews(playerID, gameID int64, hide bool) string {
	return fmt.Sprintf("hidden %d %d %t", playerID, gameID, hide)
}

// parseHidden reads hiddenNews.
func parseHidden(news string) (playerID, gameID int64, hide bool, ok bool) {
	_, err := fmt.Sscanf(news, "hidden %d %d %t", &playerID, &gameID, &hide)
	return playerID, gameID, hide, err == nil
}

// OnBansChanged calls fn (on the bus's goroutine: it must not block)
// whenever any node changes the bans; see store.BanWatcher.
func (s *Store) OnBansChanged(fn func()) (stop func()) {
	return s.bus.Subscribe(bansTopic, func([]byte) { fn() })
}
