package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestBadFlagsCreateNothing runs the real binary in an empty directory
// with one bad flag (or environment variable) at a time: each is refused
// before anything is made or logged, with one line on stderr and status
// 2. A newcomer's `serve --listen nonsense` used to make ./data, a
// database and a host key, log its migrations, and exit 1.
func TestBadFlagsCreateNothing(t *testing.T) {
	bin := buildBinary(t)
	hostKey := func(content string) func(dir string) {
		return func(dir string) {
			if content == "" {
				os.Mkdir(filepath.Join(dir, "key"), 0o700)
				return
			}
			os.WriteFile(filepath.Join(dir, "key"), []byte(content), 0o600)
		}
	}
	tests := []struct {
		args []string
		env  []string
		prep func(dir string) // made before the run, and left out of what it must not make
		want string           // in the line
	}{
		{args: []string{"serve", "--listen", "nonsense"}, want: "--listen"},
		{args: []string{"--listen", "nonsense"}, want: "--listen"},
		{args: []string{"serve", "--listen", ":99999"}, want: "--listen"},
		{args: []string{"serve", "--listen", "127.0.0.1:"}, want: "--listen"},
		{args: []string{"serve", "--http", "nonsense"}, want: "--http"},
		{args: []string{"serve", "--http", "127.0.0.1:70000"}, want: "--http"},
		{args: []string{"serve", "--metrics", "nonsense"}, want: "--metrics"},
		{args: []string{"serve", "--trusted-proxies", "10.0.0.0/99"}, want: "--trusted-proxies"},
		{args: []string{"serve", "--trusted-proxies", "localhost"}, want: "--trusted-proxies"},
		{args: []string{"serve", "--http-max-conns-per-ip", "-1"}, want: "--http-max-conns-per-ip"},
		{args: []string{"serve", "--http-max-conns", "-1"}, want: "--http-max-conns"},
		{args: []string{"serve", "--database", "nonsense"}, want: "--database"},
		{args: []string{"serve", "--database", "mysql://db/x"}, want: "--database"},
		{args: []string{"serve", "--proxy-protocol-from", "10.0.0.0/99"}, want: "--proxy-protocol-from"},
		{args: []string{"serve", "--durability", "maybe"}, want: "--durability"},
		{args: []string{"serve", "--log-format", "xml"}, want: "--log-format"},
		{args: []string{"serve", "--log-level", "loud"}, want: "--log-level"},
		{args: []string{"serve", "--idle-timeout", "soon"}, want: "--idle-timeout"},
		{args: []string{"serve", "--race-length", "1s"}, want: "--race-length"},
		{args: []string{"serve", "--review-share", "0"}, want: "--review-share"},
		{args: []string{"serve", "--review-share", "1.5"}, want: "--review-share"},
		{args: []string{"serve", "--pprof", ":6060"}, want: "--pprof"},
		{args: []string{"serve", "--max-conns", "-1"}, want: "--max-conns"},
		// NaN is no rate: it compares false with everything, and a limit
		// of NaN was no limit at all.
		{args: []string{"serve", "--http-rate-per-ip", "NaN"}, want: "--http-rate-per-ip"},
		{args: []string{"serve", "--http-rate-per-ip", "+Inf"}, want: "--http-rate-per-ip"},
		{args: []string{"serve", "--conn-rate-per-ip", "NaN"}, want: "--conn-rate-per-ip"},
		{args: []string{"serve", "--key-rate", "NaN"}, want: "--key-rate"},
		{args: []string{"serve", "--bot-rate", "Inf"}, want: "--bot-rate"},
		{args: []string{"serve", "--session-rate-per-conn", "nan"}, want: "--session-rate-per-conn"},
		{args: []string{"serve", "--login-rate", "NaN"}, want: "--login-rate"},
		// A host key that is no key, and two listeners on one address,
		// are found before the data directory is made.
		{args: []string{"serve", "--host-key", "key", "--data", "d"}, prep: hostKey("not a key\n"), want: "--host-key"},
		{args: []string{"serve", "--host-key", "key", "--data", "d"}, prep: hostKey(""), want: "--host-key"},
		{args: []string{"serve", "--http", "127.0.0.1:23401", "--metrics", "127.0.0.1:23401"}, want: "--metrics"},
		{args: []string{"serve", "--listen", "127.0.0.1:23402", "--http", "127.0.0.1:23402"}, want: "--http"},
		{args: []string{"serve", "--nope"}, want: "--nope"},
		{args: []string{"serve", "--ai=maybe"}, want: "--ai"},
		{args: []string{"serve", "--listen"}, want: "--listen"},
		{args: []string{"serve"}, env: []string{"SSH2048_LISTEN=nonsense"}, want: "--listen"},
		{args: []string{"serve"}, env: []string{"SSH2048_HTTP=:x"}, want: "--http"},
		{args: []string{"serve"}, env: []string{"SSH2048_METRICS=:x"}, want: "--metrics"},
		{args: []string{"serve"}, env: []string{"SSH2048_TRUSTED_PROXIES=10.0.0.1,nope"}, want: "--trusted-proxies"},
		{args: []string{"serve"}, env: []string{"SSH2048_DATABASE_URL=nonsense"}, want: "--database"},
		{args: []string{"play", "--database", "nonsense"}, want: "--database"},
		{args: []string{"play", "--size", "9"}, want: "--size"},
		{args: []string{"play", "--nope"}, want: "--nope"},
		{args: []string{"ai", "--size", "9"}, want: "--size"},
		{args: []string{"ai", "--games", "0"}, want: "--games"},
		{args: []string{"ai", "--games", "x"}, want: "--games"},
		{args: []string{"ai", "--games", "100000000000"}, want: "--games"}, // crashed, out of memory
		{args: []string{"admin", "bans", "--database", "nonsense"}, want: "--database"},
		{args: []string{"admin", "bans", "--database", "mysql://db/x"}, want: "--database"},
		{args: []string{"load", "--addr", "nonsense"}, want: "--addr"},
		{args: []string{"load", "--addr", "localhost:99999"}, want: "--addr"},
		{args: []string{"load", "--addr", "localhost:1", "--mode", "fast"}, want: "--mode"},
		{args: []string{"load"}, want: "--addr"},
		{args: []string{"load", "--addr", "localhost:1", "--server-pid", "1073741824"}, want: "--server-pid"},
		{args: []string{"check", "--quick=maybe"}, want: "--quick"},
		{args: []string{"check", "--nope"}, want: "--nope"},
		{args: []string{"backup", "--nope", "dest"}, want: "--nope"},
		{args: []string{"verify", "--nope", "file"}, want: "--nope"},
		{args: []string{"version", "--nope"}, want: "--nope"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(append(tt.env, tt.args...), " "), func(t *testing.T) {
			dir := t.TempDir()
			if tt.prep != nil {
				tt.prep(dir)
			}
			before, _ := os.ReadDir(dir)
			// Accepted by mistake, serve would serve until the test ends.
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, tt.args...)
			cmd.Dir = dir
			cmd.Env = append(cleanEnv(), tt.env...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 2 {
				t.Errorf("exit %v; want status 2", err)
			}
			if lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n"); len(lines) != 1 ||
				!strings.HasSuffix(stderr.String(), "\n") || !strings.Contains(lines[0], tt.want) {
				t.Errorf("stderr %q; want one line naming %s", stderr.String(), tt.want)
			}
			if strings.Contains(stderr.String(), " -"+strings.TrimPrefix(tt.want, "--")) {
				t.Errorf("stderr %q names the flag with one dash", stderr.String())
			}
			if stdout.Len() > 0 {
				t.Errorf("stdout %q; want nothing", stdout.String())
			}
			if entries, err := os.ReadDir(dir); err != nil || len(entries) > len(before) {
				t.Errorf("the directory holds %v (%v); want only %v", entries, err, before)
			}
		})
	}
}

// cleanEnv is this process's environment without the variables ssh2048
// reads, so that a test's flags are the only ones set.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, envPrefix) && !strings.HasPrefix(kv, "STATE_DIRECTORY=") && !strings.HasPrefix(kv, "GOGC=") {
			env = append(env, kv)
		}
	}
	return env
}

// TestPlayWithoutATerminal: play run with no terminal at all (cron, a
// script, ssh without -t) says so in one line, status 2, before it makes
// anything. It used to make the data directory and a database, write the
// title stack's escapes, and fail opening /dev/tty with status 1.
func TestPlayWithoutATerminal(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "play", "--data", "new")
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(), "HOME="+dir)            // no ~/.ssh: plays as local:USER@HOST
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no controlling terminal
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), "terminal") {
		t.Errorf("play without a terminal: %v, stderr %q; want one line about the terminal and status 2", err, stderr.String())
	}
	if stdout.Len() > 0 {
		t.Errorf("stdout %q; want nothing", stdout.String())
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) > 0 {
		t.Errorf("play left %v (%v); want nothing made", entries, err)
	}
}
