package server_test

import (
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"github.com/ssh2048/ssh2048/wire"
)

// TestSettingsCommand: `settings` lists the player's settings with their
// values; `settings NAME VALUE` keeps one for their key, seen by their
// next connection; a name or value the settings do not take, and a guest
// asking to keep one, get one line on stderr and exit status 2, and
// nothing is kept.
func TestSettingsCommand(t *testing.T) {
	ts := startServer(t)
	key := newKey(t)
	c := ts.dial(t, "ann", key)

	r := run(t, c, "settings", "")
	if r.code != 0 || !strings.Contains(r.stdout, "theme   default") || !strings.Contains(r.stdout, "motion  on") {
		t.Fatalf("settings: %+v", r)
	}
	if r := run(t, c, "settings theme colour-blind", ""); r.code != 0 || !strings.Contains(r.stdout, "theme   colour-blind") {
		t.Fatalf("settings theme colour-blind: %+v", r)
	}
	for _, bad := range []struct{ cmd, says string }{
		{"settings theme purple", `theme is one of default, high-contrast, colour-blind, light, not "purple"`},
		{"settings volume 11", `no setting "volume"`},
		{"settings theme light extra", "want a setting's name and a value"},
	} {
		r := run(t, c, bad.cmd, "")
		if r.code != wire.ExitUsage || !strings.Contains(r.stderr, bad.says) || strings.Count(strings.TrimSpace(r.stderr), "\n") > 1 {
			t.Errorf("%s: %+v; want exit %d and %q", bad.cmd, r, wire.ExitUsage, bad.says)
		}
	}
	again := ts.dial(t, "ann", key)
	if r := run(t, again, "settings theme", ""); r.code != 0 || !strings.Contains(r.stdout, "theme   colour-blind") || strings.Contains(r.stdout, "motion") {
		t.Errorf("settings theme, connected again: %+v", r)
	}

	guest := ts.dialGuest(t)
	r = run(t, guest, "settings theme light", "")
	if r.code != wire.ExitUsage || !strings.Contains(r.stderr, "guests' settings are not kept") || !strings.Contains(r.stderr, "SetEnv SSH2048_THEME") {
		t.Errorf("a guest's settings theme light: %+v", r)
	}
	if r := run(t, guest, "settings", ""); r.code != 0 || !strings.Contains(r.stdout, "theme   default") {
		t.Errorf("a guest's settings: %+v", r)
	}
}

// screenBytes opens the game screen of c on a PTY in true colour, with
// the session's environment env, and returns what it drew of its first
// frame and the session's exit status once quit.
func screenBytes(t *testing.T, c *gossh.Client, env map[string]string) (string, int) {
	t.Helper()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	env["COLORTERM"] = "truecolor"
	for k, v := range env {
		if err := s.Setenv(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.RequestPty("xterm-256color", 24, 80, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	in, err := s.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, errOut := &syncBuffer{}, &syncBuffer{}
	s.Stdout, s.Stderr = out, errOut
	if err := s.Shell(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the board or a refusal", func() bool { return strings.Contains(out.String(), "Score") || errOut.String() != "" })
	if said := errOut.String(); said != "" { // refused before the screen
		return said, exitCode(t, s.Wait())
	}
	drawn := out.String()
	return drawn, quitScreen(t, s, func(k string) { in.Write([]byte(k)) })
}

// TestThemeReachesTheScreen: the player's kept theme draws their game
// screen, SSH2048_THEME in the session's environment wins over it for
// that session, and a theme there that is none gets one line and exit
// status 2 before any screen.
func TestThemeReachesTheScreen(t *testing.T) {
	ts := startServer(t)
	key := newKey(t)
	c := ts.dial(t, "ann", key)
	if r := run(t, c, "settings theme high-contrast", ""); r.code != 0 {
		t.Fatalf("settings theme high-contrast: %+v", r)
	}
	// Each theme's empty cell, as true colour writes its background.
	const (
		defaultEmpty  = "48;2;205;193;180"
		contrastEmpty = "48;2;48;48;48"
		blindEmpty    = "48;2;78;78;78"
	)
	drawn, code := screenBytes(t, c, map[string]string{})
	if code != 0 || !strings.Contains(drawn, contrastEmpty) || strings.Contains(drawn, defaultEmpty) {
		t.Errorf("the kept theme: exit %d, high-contrast's empty cell drawn %v, the default's %v",
			code, strings.Contains(drawn, contrastEmpty), strings.Contains(drawn, defaultEmpty))
	}
	drawn, code = screenBytes(t, ts.dial(t, "ann", key), map[string]string{"SSH2048_THEME": "colour-blind"})
	if code != 0 || !strings.Contains(drawn, blindEmpty) || strings.Contains(drawn, contrastEmpty) {
		t.Errorf("SSH2048_THEME=colour-blind: exit %d, its empty cell drawn %v, the kept theme's %v",
			code, strings.Contains(drawn, blindEmpty), strings.Contains(drawn, contrastEmpty))
	}
	said, code := screenBytes(t, ts.dial(t, "ann", key), map[string]string{"SSH2048_THEME": "purple"})
	said = strings.ReplaceAll(said, "\r\n", " ") // wrapped to the window
	if code != wire.ExitUsage || !strings.Contains(said, `SSH2048_THEME: theme is one of default, high-contrast, colour-blind, light, not "purple"`) {
		t.Errorf("SSH2048_THEME=purple: exit %d, said %q", code, said)
	}
	if r := run(t, c, "settings", ""); !strings.Contains(r.stdout, "theme   high-contrast") {
		t.Errorf("the session's environment changed the kept theme: %+v", r)
	}
}
