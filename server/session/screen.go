package session

import "charm.land/ssh"

// ScreenEnv is the environment variable that picks a session's screen
// (OpenSSH: `SetEnv SSH2048_SCREEN=reader`); ScreenReader is the value
// that asks for the screen for screen readers (package tui/reader).
const (
	ScreenEnv    = "SSH2048_SCREEN"
	ScreenReader = "reader"
)

// WantsReader reports whether the session asked for the screen for
// screen readers. The last value sent counts, as in a shell; any value
// other than ScreenReader is the game screen.
func WantsReader(sess ssh.Session) bool {
	want := false
	for _, kv := range sess.Environ() {
		if len(kv) > len(ScreenEnv) && kv[len(ScreenEnv)] == '=' && kv[:len(ScreenEnv)] == ScreenEnv {
			want = kv[len(ScreenEnv)+1:] == ScreenReader
		}
	}
	return want
}
