package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/internal/accounts"
)

// PlayerByID returns the player with that id, or store.ErrNotFound.
func (s *Store) PlayerByID(ctx context.Context, id int64) (store.Player, error) {
	var p store.Player
	var first, last int64
	err := s.read.QueryRowContext(ctx, `
		SELECT id, fingerprint, key_type, name, first_seen, `+accounts.LastSeen+` FROM players p WHERE id = ?`, id,
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
