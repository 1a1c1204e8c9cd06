package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/ssh2048/ssh2048/store"
)

// Settings returns the settings the player set (store.SettingsKeeper).
func (s *Store) Settings(ctx context.Context, playerID int64) (map[string]string, error) {
	rows, err := s.read.QueryContext(ctx, store.SettingsQuery, playerID)
	if err != nil {
		return nil, fmt.Errorf("settings of player %d: %w", playerID, err)
	}
	defer rows.Close()
	out, err := store.ScanSettings(rows)
	if err != nil {
		return nil, fmt.Errorf("settings of player %d: %w", playerID, err)
	}
	return out, nil
}

// SetSetting sets one of the player's settings, or removes it when value
// is "" or the default (store.SettingsKeeper).
func (s *Store) SetSetting(ctx context.Context, playerID int64, key, value string) error {
	key, value, err := store.CheckSetting(key, value)
	if err != nil {
		return fmt.Errorf("set setting of player %d: %w", playerID, err)
	}
	err = s.w.do(ctx, func(ctx context.Context, tx *sql.Tx, now int64) error {
		q, args := store.SettingWrite(playerID, key, value, now)
		_, err := tx.ExecContext(ctx, q, args...)
		return err
	})
	if err != nil {
		return fmt.Errorf("set %s of player %d: %w", key, playerID, err)
	}
	return nil
}
