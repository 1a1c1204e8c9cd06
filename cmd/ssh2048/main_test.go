package main

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/server/admission"
	"github.com/ssh2048/ssh2048/web"
)

func TestSubcommands(t *testing.T) {
	tests := []struct {
		args   []string
		code   int
		stdout string // substring
		stderr string // substring
	}{
		{[]string{"help"}, 0, "serve", ""},
		{[]string{"--help"}, 0, "version", ""},
		{[]string{"-h"}, 0, "Subcommands", ""},
		{[]string{"version"}, 0, "ssh2048 ", ""},
		// Help asked for is the answer: on stdout, and nothing on stderr.
		{[]string{"version", "--help"}, 0, "usage: ssh2048 version", ""},
		{[]string{"serve", "--help"}, 0, "-listen", ""},
		{[]string{"serve", "-h"}, 0, "-ai", ""},
		{[]string{"help", "--help"}, 0, "usage: ssh2048 help", ""},
		{[]string{"play", "--help"}, 0, "-key", ""},
		{[]string{"ai", "--help"}, 0, "-games", ""},
		{[]string{"bogus"}, 2, "", `unknown subcommand "bogus"`},
		{[]string{"version", "extra"}, 2, "", "unexpected argument"},
		{[]string{"serve", "--nope"}, 2, "", "ssh2048 serve: unknown flag --nope; see `ssh2048 serve --help`\n"},
		{[]string{"verify", "--nope", "f"}, 2, "", "ssh2048 verify: unknown flag --nope; see `ssh2048 verify --help`\n"},
		{[]string{"ai", "--games", "x"}, 2, "", `ssh2048 ai: invalid value "x" for --games: parse error; see ` + "`ssh2048 ai --help`\n"},
		{[]string{"verify"}, 2, "", "ssh2048 verify: missing argument (usage below)\nusage: ssh2048 verify FILE"},
		{[]string{"backup"}, 2, "", "ssh2048 backup: missing argument (usage below)\nusage: ssh2048 backup"},
		{[]string{"--log-format", "xml"}, 2, "", "want text or json"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(tt.args, &out, &errOut)
			asked := slices.ContainsFunc(tt.args, isHelpFlag)
			if code != tt.code || !strings.Contains(out.String(), tt.stdout) || !strings.Contains(errOut.String(), tt.stderr) ||
				(asked && errOut.Len() > 0) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d, stdout ~%q, stderr ~%q",
					code, out.String(), errOut.String(), tt.code, tt.stdout, tt.stderr)
			}
		})
	}
}

// TestFlagHelp: every subcommand's --help names each flag as --name (as
// its usage line does, not -name as the package flag prints), says each
// default once (`backup --help` said "(default $STATE_DIRECTORY, else
// ./data)" and then "(default "data")"), and fits 80 columns.
func TestFlagHelp(t *testing.T) {
	for _, c := range subcommands {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			if code := run([]string{c.name, "--help"}, &out, io.Discard); code != 0 {
				t.Fatalf("exit %d", code)
			}
			entries := strings.Split(out.String(), "\n  -")
			for _, e := range entries[1:] {
				if !strings.HasPrefix(e, "-") {
					t.Errorf("a flag with one dash: -%s", e)
				}
				if n := strings.Count(e, "(default"); n > 1 {
					t.Errorf("%d defaults: -%s", n, e)
				}
			}
			for _, line := range strings.Split(out.String(), "\n") {
				if n := utf8.RuneCountInString(line); n > 80 {
					t.Errorf("%d columns: %q", n, line)
				}
			}
		})
	}
}

func TestServeFlagsFromEnvironment(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want serveConfig
		idle time.Duration // want.limits is the defaults with this idle timeout
	}{
		{"defaults", nil, nil, serveConfig{listen: ":23234", data: "data", logFormat: "text", durability: "power", ai: true, motion: true}, 10 * time.Minute},
		{"systemd state directory", map[string]string{"STATE_DIRECTORY": "/var/lib/ssh2048:/other"}, nil,
			serveConfig{listen: ":23234", data: "/var/lib/ssh2048", logFormat: "text", durability: "power", ai: true, motion: true}, 10 * time.Minute},
		{"environment", map[string]string{"SSH2048_LISTEN": "127.0.0.1:2222", "SSH2048_DATA": "/d", "STATE_DIRECTORY": "/s",
			"SSH2048_IDLE_TIMEOUT": "30s", "SSH2048_LOG_FORMAT": "json", "SSH2048_DURABILITY": "crash", "SSH2048_AI": "false",
			"SSH2048_HTTP": "127.0.0.1:23280", "SSH2048_HTTP_RATE_PER_IP": "0", "SSH2048_RACE_LENGTH": "20s",
			"SSH2048_MOTION": "false", "SSH2048_MOTION_SCREENS": "5", "SSH2048_REVIEW_SHARE": "0.5"}, nil,
			serveConfig{listen: "127.0.0.1:2222", data: "/d", logFormat: "json", durability: "crash", motionMax: 5, reviewShare: 0.5,
				http: httpConfig{addr: "127.0.0.1:23280", ratePerIP: 0, burstPerIP: 40, conns: web.DefaultConnLimits()}, raceLength: 20 * time.Second}, 30 * time.Second},
		{"flags beat environment", map[string]string{"SSH2048_LISTEN": "127.0.0.1:2222", "SSH2048_DATA": "/d", "SSH2048_AI": "false"},
			[]string{"--listen", ":1", "--data", "/f", "--idle-timeout", "0", "--ai"},
			serveConfig{listen: ":1", data: "/f", logFormat: "text", durability: "power", ai: true, motion: true}, 0},
		{"AI off", nil, []string{"--ai=false"},
			serveConfig{listen: ":23234", data: "data", logFormat: "text", durability: "power", motion: true}, 10 * time.Minute},
		{"motion off", nil, []string{"--motion=false"},
			serveConfig{listen: ":23234", data: "data", logFormat: "text", durability: "power", ai: true}, 10 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, k := range []string{"SSH2048_LISTEN", "SSH2048_DATA", "STATE_DIRECTORY", "SSH2048_IDLE_TIMEOUT", "SSH2048_LOG_FORMAT", "SSH2048_LOG_LEVEL", "SSH2048_DURABILITY", "SSH2048_AI",
				"SSH2048_HTTP", "SSH2048_HTTP_RATE_PER_IP", "SSH2048_RACE_LENGTH", "SSH2048_MOTION", "SSH2048_MOTION_SCREENS", "SSH2048_REVIEW_SHARE"} {
				t.Setenv(k, tt.env[k])
			}
			var errOut bytes.Buffer
			got, code, ok := parseServe(tt.args, io.Discard, &errOut)
			if !ok {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			tt.want.limits = admission.DefaultLimits()
			tt.want.limits.IdleTimeout = tt.idle
			if tt.want.http == (httpConfig{}) {
				tt.want.http = httpConfig{ratePerIP: 20, burstPerIP: 40, conns: web.DefaultConnLimits()} // off, with the default limits
			}
			if tt.want.raceLength == 0 {
				tt.want.raceLength = 3 * time.Minute
			}
			if tt.want.reviewShare == 0 {
				tt.want.reviewShare = defaultReviewShare
			}
			if tt.want.motionMax == 0 {
				tt.want.motionMax = server.DefaultMotionScreens
			}
			if got != tt.want {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
	for bad, shown := range map[string]string{"1s": "1s", "11m": "11m0s"} {
		var errOut bytes.Buffer
		_, code, ok := parseServe([]string{"--race-length", bad}, io.Discard, &errOut)
		if want := "ssh2048 serve: --race-length " + shown + ": must be 5s to 10m0s\n"; ok || code != 2 || errOut.String() != want {
			t.Fatalf("--race-length %s: exit %d, %q; want 2, %q", bad, code, errOut.String(), want)
		}
	}
	if _, code, ok := parseServe([]string{"--durability", "maybe"}, io.Discard, &bytes.Buffer{}); ok || code != 2 {
		t.Fatal("--durability maybe was accepted")
	}
	if _, code, ok := parseServe([]string{"--http-burst-per-ip", "0"}, io.Discard, &bytes.Buffer{}); ok || code != 2 {
		t.Fatal("--http-burst-per-ip 0 was accepted")
	}
	t.Setenv("SSH2048_IDLE_TIMEOUT", "soon")
	if _, code, ok := parseServe(nil, io.Discard, &bytes.Buffer{}); ok || code != 2 {
		t.Fatal("a bad $SSH2048_IDLE_TIMEOUT was accepted")
	}
}
