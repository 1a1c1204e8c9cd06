package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/ssh2048/ssh2048/store"
)

// Settings returns the settings the player set (store.SettingsKeeper).
func (s *Store) Settings(ctx context.Context, playerID int64) (map[string]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT key, value FROM player_settings WHERE player_id = $1`, playerID)
	if err != nil {
		return nil, fmt.Errorf("settings of player %d: %w", playerID, err)
	}
	defer rows.Close()
	out := make(map[string]string)
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("settings of player %d: %w", playerID, err)
		}
		out[k] = v
	}
	if err := rows.Err(); err != nil {
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
	def, _ := store.SettingOf(key)
	err = s.w.do(ctx, func(ctx context.Context, tx pgx.Tx, now int64) error {
		if value == def.Default() {
			_, err := tx.Exec(ctx, `DELETE FROM player_settings WHERE player_id = $1 AND key = $2`, playerID, key)
			return err
		}
		_, err := tx.Exec(ctx, `
			INSERT INTO player_settings (player_id, key, value, updated_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (player_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
			playerID, key, value, now)
		return err
	})
	if err != nil {
		return fmt.Errorf("set %s of player %d: %w", key, playerID, err)
	}
	return nil
}
