package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// UpsertPlayer records a connection by the public key with the given
// fingerprint: it creates the player on first sight, and otherwise updates
// the key type, the display name (players may change it by connecting with
// another SSH user name) and the last-seen time. rawName is sanitized with
// SanitizeName; an empty result becomes "player-" and the first letters of
// the fingerprint.
func (s *Store) UpsertPlayer(ctx context.Context, fingerprint, keyType, rawName string) (Player, error) {
	if fingerprint == "" {
		return Player{}, fmt.Errorf("upsert player: %w: empty fingerprint", ErrInvalid)
	}
	name := DisplayName(rawName, fingerprint)
	var p Player
	err := s.w.do(ctx, func(ctx context.Context, tx *sql.Tx, now int64) error {
		var first, last int64
		err := tx.QueryRowContext(ctx, `
			INSERT INTO players (fingerprint, key_type, name, first_seen, last_seen)
			VALUES (?1, ?2, ?3, ?4, ?4)
			ON CONFLICT (fingerprint) DO UPDATE
			SET key_type = excluded.key_type, name = excluded.name, last_seen = excluded.last_seen
			RETURNING id, fingerprint, key_type, name, first_seen, last_seen`,
			fingerprint, keyType, name, now,
		).Scan(&p.ID, &p.Fingerprint, &p.KeyType, &p.Name, &first, &last)
		p.FirstSeen, p.LastSeen = fromMicros(first), fromMicros(last)
		return err
	})
	if err != nil {
		return Player{}, fmt.Errorf("upsert player %s: %w", fingerprint, err)
	}
	return p, nil
}

// DisplayName is a player's name as it may be shown to anyone: sanitized
// (SanitizeName), or, when nothing is left of it, "player-" and the first
// letters of the key's fingerprint. Names stored by an older version are
// shown through it too: SanitizeName is idempotent, so a name stored clean
// stays as it is.
func DisplayName(name, fingerprint string) string {
	if clean := SanitizeName(name); clean != "" {
		return clean
	}
	return fallbackName(fingerprint)
}

// fallbackName names a player whose user name sanitized to nothing.
func fallbackName(fingerprint string) string {
	id := strings.TrimPrefix(fingerprint, "SHA256:")
	id = SanitizeName(id)
	if r := []rune(id); len(r) > 6 {
		id = string(r[:6])
	}
	return "player-" + id
}

// PlayerByID returns the player with that id, or ErrNotFound.
func (s *Store) PlayerByID(ctx context.Context, id int64) (Player, error) {
	var p Player
	var first, last int64
	err := s.read.QueryRowContext(ctx, `
		SELECT id, fingerprint, key_type, name, first_seen, last_seen FROM players WHERE id = ?`, id,
	).Scan(&p.ID, &p.Fingerprint, &p.KeyType, &p.Name, &first, &last)
	if errors.Is(err, sql.ErrNoRows) {
		return Player{}, fmt.Errorf("player %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Player{}, fmt.Errorf("player %d: %w", id, err)
	}
	p.FirstSeen, p.LastSeen = fromMicros(first), fromMicros(last)
	return p, nil
}
