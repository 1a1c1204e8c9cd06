package game

import (
	"context"
	"errors"
	"fmt"

	"github.com/ssh2048/ssh2048/store"
)

// ErrNoSettings: the player's settings are not kept: a guest's never are
// (no key to keep them by), nor a store's without store.SettingsKeeper.
var ErrNoSettings = errors.New("settings are not kept")

// Settings returns every setting of the player (store.Settings), each
// the value they set or its default.
func (s *Service) Settings(ctx context.Context, p Player) (map[string]string, error) {
	out := make(map[string]string, len(store.Settings))
	for _, st := range store.Settings {
		out[st.Key] = st.Default()
	}
	k, ok := s.store.(store.SettingsKeeper)
	if p.Guest || !ok {
		return out, ErrNoSettings
	}
	set, err := k.Settings(ctx, p.ID)
	if err != nil {
		return out, fmt.Errorf("settings of %s: %w", p.Name, err)
	}
	for key, v := range set {
		if _, v, err := store.CheckSetting(key, v); err == nil {
			out[key] = v // a value a newer binary wrote stays unknown here
		}
	}
	return out, nil
}

// SetSetting sets one of the player's settings (store.CheckSetting says
// which: store.ErrInvalid otherwise); ErrNoSettings where none are kept.
func (s *Service) SetSetting(ctx context.Context, p Player, key, value string) error {
	if _, _, err := store.CheckSetting(key, value); err != nil {
		return err
	}
	k, ok := s.store.(store.SettingsKeeper)
	if p.Guest || !ok {
		return ErrNoSettings
	}
	return k.SetSetting(ctx, p.ID, key, value)
}
