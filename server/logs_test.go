package server_test

import (
	"bufio"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/server"
	gossh "golang.org/x/crypto/ssh"
)

// jsonLogs makes the server log JSON into buf, as it does under systemd.
func jsonLogs(buf *syncBuffer) serverOption {
	return func(c *server.Config) { c.Logger = slog.New(slog.NewJSONHandler(buf, nil)) }
}

// logLines decodes JSON log lines.
func logLines(t *testing.T, s string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		lines = append(lines, m)
	}
	return lines
}

// TestLogClientStrings: a huge user name, PTY term and command reach the
// log cut to 128 bytes with their length, and C1 controls, DEL and bidi
// characters in them are escaped: the JSON log holds none raw.
func TestLogClientStrings(t *testing.T) {
	var logs syncBuffer
	ts := startServer(t, jsonLogs(&logs))
	user := "evil\u009b2J\u202e\x7f" + strings.Repeat("u", 200_000)
	c := ts.dial(t, user, newKey(t))
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	term := "xterm\u0085\u2066" + strings.Repeat("t", 30_000)
	command := "help " + strings.Repeat("c", 30_000)
	if err := s.RequestPty(term, 24, 80, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	s.Run(command)
	s.Close()
	run(t, c, "help", "") // the first session's disconnect is logged by now
	raw := logs.String()
	for _, r := range raw {
		if (r >= 0x80 && r <= 0x9f) || r == 0x7f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
			t.Fatalf("raw %U in the JSON log", r)
		}
	}
	found := false
	for _, l := range logLines(t, raw) {
		if l["msg"] != "connect" || l["pty"] != true {
			continue
		}
		found = true
		for key, n := range map[string]float64{"user": float64(len(user)), "term": float64(len(term)), "command": float64(len(command))} {
			v, _ := l[key].(string)
			if len(v) > 128+len("…")+40 || !strings.HasSuffix(v, "…") || l[key+"_bytes"] != n {
				t.Errorf("%s: %q (%v bytes logged as %v)", key, v, len(v), l[key+"_bytes"])
			}
		}
		if u := l["user"].(string); !strings.HasPrefix(u, `evil\u009b2J\u202e\x7fuuu`) {
			t.Errorf("user logged as %q", u)
		}
	}
	if !found {
		t.Fatalf("no connect line with a PTY:\n%s", raw)
	}
	if len(raw) > 8<<10 {
		t.Errorf("%d bytes of log for two sessions", len(raw))
	}
}

// TestLogBudgetPerAddress: sessions opened in a loop from one address get
// a burst of connect lines, then at most 2 a second; the next line logged
// says how many were left out, and another address is not affected.
func TestLogBudgetPerAddress(t *testing.T) {
	ts := startServer(t, noCaps, func(c *server.Config) { c.Limits.SessionRatePerConn, c.Limits.MaxSessionsPerConn = 0, 0 })
	c := dialFrom(t, ts.addr, "127.0.0.1")
	const sessions = 100
	start := time.Now()
	for range sessions {
		if r := run(t, c, "help", ""); r.code != 0 {
			t.Fatal(r)
		}
	}
	// The burst of 30, and 2 a second for as long as the loop took (long
	// on a busy machine).
	most := 30 + int(2*time.Since(start).Seconds()) + 1
	if logged := strings.Count(ts.logs.String(), "msg=connect"); logged < 30 || logged > most {
		t.Errorf("%d of %d sessions logged, want 30 to %d", logged, sessions, most)
	}
	run(t, dialFrom(t, ts.addr, "127.0.0.2"), "help", "")
	if !strings.Contains(ts.logs.String(), "remote=127.0.0.2") {
		t.Error("another address's session was not logged")
	}
	waitFor(t, "a token back", func() bool {
		run(t, c, "help", "")
		return strings.Contains(ts.logs.String(), "unlogged=")
	})
}
