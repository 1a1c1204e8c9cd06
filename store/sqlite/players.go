package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/ssh2048/ssh2048/store"
)

// UpsertPlayer records a connection by the public key with the given
// fingerprint: it creates the player on first sight, and otherwise updates
// the key type, the display name (players may change it by connecting with
// another SSH user name) and the last-seen time. rawName is sanitized with
// store.SanitizeName; an empty result becomes "player-" and the first letters of
// the fingerprint. A name an admin set and locked (Rename) stays until its
// lock ends.
func (s *Store) UpsertPlayer(ctx context.Context, fingerprint, keyType, rawName string) (store.Player, error) {
	if fingerprint == "" {
		return store.Player{}, fmt.Errorf("upsert player: %w: empty fingerprint", store.ErrInvalid)
	}
	name := store.DisplayName(rawName, fingerprint)
	var p store.Player
	err := s.w.do(ctx, func(ctx context.Context, tx *sql.Tx, now int64) error {
		var first, last int64
		err := tx.QueryRowContext(ctx, `
			INSERT INTO players (fingerprint, key_type, name, first_seen, last_seen)
			VALUES (?1, ?2, ?3, ?4, ?4)
			ON CONFLICT (fingerprint) DO UPDATE
			SET key_type = excluded.key_type, last_seen = excluded.last_seen,
			    name = CASE WHEN players.name_locked_until > excluded.last_seen THEN players.name ELSE excluded.name END
			RETURNING id, fingerprint, key_type, name, first_seen, last_seen`,
			fingerprint, keyType, name, now,
		).Scan(&p.ID, &p.Fingerprint, &p.KeyType, &p.Name, &first, &last)
		p.FirstSeen, p.LastSeen = fromMicros(first), fromMicros(last)
		return err
	})
	if err != nil {
		return store.Player{}, fmt.Errorf("upsert player %s: %w", fingerprint, err)
	}
	return p, nil
}

// PlayerByID returns the player with that id, or store.ErrNotFound.
func (s *Store) PlayerByID(ctx context.Context, id int64) (store.Player, error) {
	var p store.Player
	var first, last int64
	err := s.read.QueryRowContext(ctx, `
		SELECT id, fingerprint, key_type, name, first_seen, last_seen FROM players WHERE id = ?`, id,
	).Scan(&p.ID, &p.Fingerprint, &p.KeyType, &p.Name, &first, &last)
	if errors.Is(err, sql.ErrNoRows) {
		return store.Player{}, fmt.Errorf("player %d: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return store.Player{}, fmt.Errorf("player %d: %w", id, err)
	}
	p.FirstSeen, p.LastSeen = fromMicros(first), fromMicros(last)
	return p, nil
}
