package command

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/tui/draw"
	"github.com/ssh2048/ssh2048/wire"
)

// settingsCommand is `settings [NAME [VALUE]]`: the player's settings
// (store.Settings: theme, screen, motion), kept by their account; with a
// name, that one; with a value too, it is set. A session's environment
// (SSH2048_THEME=…) wins over them for that session, which the listing
// says.
func settingsCommand() Command {
	return Command{
		Name:    "settings",
		Args:    "[NAME [VALUE]]",
		Summary: "show your settings (theme, screen, motion), or set one: settings theme colour-blind",
		run:     (*Table).runSettings,
	}
}

func (t *Table) runSettings(sess *session.Session, fs *commandFlags, args []string) int {
	if code, ok := fs.parse(args); !ok {
		return code
	}
	if fs.NArg() > 2 {
		return fs.mistake("want a setting's name and a value, at most")
	}
	env, envErr := sess.EnvSettings()
	key := ""
	if fs.NArg() > 0 {
		k, _, err := store.CheckSetting(fs.Arg(0), "")
		if err != nil {
			fmt.Fprintf(sess.Stderr(), "settings: %v\n", err)
			return wire.ExitUsage
		}
		key = k
	}
	ctx, cancel := context.WithTimeout(sess.Context(), readTimeout)
	defer cancel()
	if fs.NArg() == 2 {
		err := t.games.SetSetting(ctx, sess.Player, key, fs.Arg(1))
		switch {
		case errors.Is(err, store.ErrInvalid):
			fmt.Fprintf(sess.Stderr(), "settings: %v\n", err)
			return wire.ExitUsage
		case errors.Is(err, game.ErrNoSettings):
			fmt.Fprintf(sess.Stderr(), "settings: %s\n", noSettingsText(sess, key))
			return wire.ExitUsage
		case err != nil:
			t.log.Warn("set setting", "player", sess.Player.ID, "key", key, "err", err)
			fmt.Fprintln(sess.Stderr(), "settings: could not save the setting; try again later")
			return wire.ExitError
		}
	}
	kept, err := t.games.Settings(ctx, sess.Player)
	if err != nil && !errors.Is(err, game.ErrNoSettings) {
		t.log.Warn("settings", "player", sess.Player.ID, "err", err)
		fmt.Fprintln(sess.Stderr(), "settings: could not read your settings; try again later")
		return wire.ExitError
	}
	var b strings.Builder
	for _, st := range store.Settings {
		if key != "" && st.Key != key {
			continue
		}
		fmt.Fprintf(&b, "%-7s %-14s %s\n", st.Key, kept[st.Key], strings.Join(st.Values, ", "))
		if v, ok := env[st.Key]; ok && v != kept[st.Key] {
			fmt.Fprintf(&b, "        %s=%s in this session\n", session.EnvName(st.Key), v)
		}
	}
	if errors.Is(err, game.ErrNoSettings) {
		fmt.Fprintf(&b, "(%s)\n", noSettingsText(sess, key))
	}
	if envErr != nil {
		fmt.Fprintf(&b, "(%v: screens refuse it)\n", envErr)
	}
	fmt.Fprint(sess, b.String())
	return wire.ExitOK
}

// noSettingsText says why the player's settings are not kept, and what
// does the same for one session.
func noSettingsText(sess *session.Session, key string) string {
	if key == "" {
		key = store.SettingTheme
	}
	why := "this server keeps no settings"
	if sess.Player.Guest {
		why = "guests' settings are not kept: connect with an SSH key to keep yours"
	}
	return why + "; for one session, SetEnv " + session.EnvName(key) + "=… in your ssh config"
}

// SessionSettings sets sess.Settings before a screen opens: the player's
// kept settings, with the session's environment over them. A variable
// of the session's environment that names a setting but holds no value
// it takes is refused, with a line that says which values it takes and
// wire.ExitUsage, before any screen; a store that cannot be read leaves
// the defaults, logged.
func (t *Table) SessionSettings(sess *session.Session) (code int, ok bool) {
	if sess.Settings != nil {
		return wire.ExitOK, true
	}
	env, err := sess.EnvSettings()
	if err != nil {
		fmt.Fprintf(sess.Stderr(), "ssh2048: %v\n", err)
		return wire.ExitUsage, false
	}
	ctx, cancel := context.WithTimeout(sess.Context(), readTimeout)
	defer cancel()
	set, err := t.games.Settings(ctx, sess.Player)
	if err != nil && !errors.Is(err, game.ErrNoSettings) {
		t.log.Warn("settings", "player", sess.Player.ID, "err", err)
	}
	for k, v := range env {
		set[k] = v
	}
	sess.Settings = set
	return wire.ExitOK, true
}

// ThemeOf is the theme settings name (session.Session.Settings).
func ThemeOf(settings map[string]string) draw.Theme {
	th, _ := draw.ThemeNamed(settings[store.SettingTheme])
	return th
}
