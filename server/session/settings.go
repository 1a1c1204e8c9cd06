package session

import (
	"fmt"
	"strings"

	"github.com/ssh2048/ssh2048/store"
)

// EnvName is the environment variable a session sets setting key with
// (SetEnv SSH2048_THEME=light in the client's ssh_config): for that
// session it wins over the player's kept setting.
func EnvName(key string) string { return "SSH2048_" + strings.ToUpper(key) }

// EnvSettings returns the settings the session's environment sets, by
// key, each checked (store.CheckSetting): an error (store.ErrInvalid)
// names the variable and the values it takes. Other variables are not
// looked at.
func (sess *Session) EnvSettings() (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range sess.Environ() {
		name, value, _ := strings.Cut(kv, "=")
		for _, st := range store.Settings {
			if name != EnvName(st.Key) {
				continue
			}
			_, v, err := store.CheckSetting(st.Key, value)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			out[st.Key] = v
		}
	}
	return out, nil
}
