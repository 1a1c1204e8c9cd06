package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
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
	tests := []struct {
		args []string
		env  []string
		want string // in the line
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
			if entries, err := os.ReadDir(dir); err != nil || len(entries) > 0 {
				t.Errorf("the directory holds %v (%v); want it empty", entries, err)
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
