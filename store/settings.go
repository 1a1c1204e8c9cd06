package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// SettingsKeeper is a store that keeps each player's settings (both
// stores), by account (every key of the account has them): a few named
// values, each one of the few Settings allows, such
// as the theme the player's screens are drawn in. Without it the
// `settings` command says settings are not kept, and every session starts
// from the defaults and what its environment asks for.
type SettingsKeeper interface {
	// Settings returns the settings the player set, by key; a key the
	// player never set (or set back to its default) is absent.
	Settings(ctx context.Context, playerID int64) (map[string]string, error)
	// SetSetting sets one of the player's settings, checked with
	// CheckSetting (ErrInvalid otherwise, nothing written); the value ""
	// or the setting's default removes it.
	SetSetting(ctx context.Context, playerID int64, key, value string) error
}

// The settings' keys.
const (
	SettingTheme  = "theme"  // the colours tiles are drawn in
	SettingScreen = "screen" // the full-screen game, or the line-oriented one for screen readers
	SettingMotion = "motion" // whether a move slides its tiles
)

// Setting is one setting a player may keep: its key, the values it takes
// (the first is the default), and what it is, for the `settings` command.
type Setting struct {
	Key    string
	Values []string
	About  string
}

// Default is the value of a setting the player has not set.
func (s Setting) Default() string { return s.Values[0] }

// Settings are every setting a player may keep, in the order the
// `settings` command lists them. The screens hold what each value means;
// a value is named here so that both stores refuse the same ones.
var Settings = []Setting{
	{SettingTheme, []string{"default", "high-contrast", "colour-blind", "light"}, "the colours of the tiles"},
	{SettingScreen, []string{"game", "reader"}, "the full-screen game, or lines for screen readers"},
	{SettingMotion, []string{"on", "off"}, "tiles slide when they move"},
}

// SettingOf returns the setting of key (matched without regard to case).
func SettingOf(key string) (Setting, bool) {
	i := slices.IndexFunc(Settings, func(s Setting) bool { return strings.EqualFold(s.Key, key) })
	if i < 0 {
		return Setting{}, false
	}
	return Settings[i], true
}

// CheckSetting returns the key and value as stored (lower case), or a
// *SettingError (errors.Is ErrInvalid) when the key is not a setting or
// the value not one it takes. "" stands for the default.
func CheckSetting(key, value string) (string, string, error) {
	s, ok := SettingOf(key)
	if !ok {
		return "", "", &SettingError{Key: key}
	}
	if value == "" {
		return s.Key, s.Default(), nil
	}
	i := slices.IndexFunc(s.Values, func(v string) bool { return strings.EqualFold(v, value) })
	if i < 0 {
		return "", "", &SettingError{Key: s.Key, Value: value, Known: true}
	}
	return s.Key, s.Values[i], nil
}

// SettingError is a key that is no setting, or a value its setting does
// not take; its text says what would be, in words a player reads.
type SettingError struct {
	Key, Value string
	Known      bool // the key is a setting: the value is what is wrong
}

func (e *SettingError) Error() string {
	if !e.Known {
		keys := make([]string, len(Settings))
		for i, s := range Settings {
			keys[i] = s.Key
		}
		return fmt.Sprintf("no setting %.40q; the settings are %s", e.Key, strings.Join(keys, ", "))
	}
	s, _ := SettingOf(e.Key)
	return fmt.Sprintf("%s is one of %s, not %.40q", s.Key, strings.Join(s.Values, ", "), e.Value)
}

func (e *SettingError) Unwrap() error { return ErrInvalid }

// What both stores share of SettingsKeeper: the query, how its rows are
// read, and the statement that keeps one setting.

// SettingsQuery selects a player's settings ($1 the player) for
// ScanSettings.
const SettingsQuery = `SELECT key, value FROM player_settings WHERE player_id = $1`

// ScanSettings reads the rows of SettingsQuery (*sql.Rows and pgx.Rows
// alike) into a map of key to value. The caller closes rows.
func ScanSettings(rows MoveRows) (map[string]string, error) {
	out := make(map[string]string)
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("read settings: %w", err)
		}
		out[k] = v
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read settings: %w", err)
	}
	return out, nil
}

// SettingWrite is the statement that keeps value for the player's key,
// both already through CheckSetting, at now: a value set back to its
// default deletes the row, so that a later change of default reaches the
// player.
func SettingWrite(playerID int64, key, value string, now int64) (query string, args []any) {
	if def, _ := SettingOf(key); value == def.Default() {
		return `DELETE FROM player_settings WHERE player_id = $1 AND key = $2`, []any{playerID, key}
	}
	return `INSERT INTO player_settings (player_id, key, value, updated_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (player_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
		[]any{playerID, key, value, now}
}
