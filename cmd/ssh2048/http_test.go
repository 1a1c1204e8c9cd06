package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/wire"
	gossh "golang.org/x/crypto/ssh"
)

// TestServeHTTP runs the binary with --http (from its environment
// variable): the probes answer, the site lists a bot's game, and /metrics
// counts what players did: moves, sessions, commits, a key's frame, a
// refused connection; and names no player.
func TestServeHTTP(t *testing.T) {
	bin := buildBinary(t)
	srv := startProcess(t, bin, t.TempDir(), "SSH2048_HTTP=127.0.0.1:0", "SSH2048_MAX_UNAUTH_PER_IP=1",
		"SSH2048_LOGIN_GRACE=2m") // the connection that never logs in stays for the whole test
	if srv.httpAddr == "" {
		t.Fatal(`no "listening http" line`)
	}
	base := "http://" + srv.httpAddr
	for path, want := range map[string]int{"/healthz": 200, "/readyz": 200, "/": 200, "/nope": 404} {
		if resp := httpGet(t, base+path); resp.code != want {
			t.Errorf("%s: status %d, want %d", path, resp.code, want)
		}
	}

	// A bot plays a few moves.
	var hostKey string
	c := dial(t, srv.addr, clientKey(t), &hostKey)
	b := startBot(t, c)
	botState := b.read(t)
	for _, d := range []string{"left", "up", "right", "down", "left", "up"} {
		io.WriteString(b.in, d+"\n")
		botState = b.read(t)
	}
	// A game screen gets keys.
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if err := sess.RequestPty("xterm-256color", 24, 80, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	in, _ := sess.StdinPipe()
	out, _ := sess.StdoutPipe()
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, bufio.NewReader(out))
	// A second connection that does not log in is over the cap of 1
	// unauthenticated connection per address. The first must be in
	// before the second comes (connections are admitted concurrently):
	// its server's version line says it is.
	hold, err := net.Dial("tcp", srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Close()
	if line, err := bufio.NewReader(hold).ReadString('\n'); err != nil || !strings.HasPrefix(line, "SSH-2.0-") {
		t.Fatalf("the first connection: %q %v", line, err)
	}
	refused, err := net.Dial("tcp", srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	refused.SetReadDeadline(time.Now().Add(10 * time.Second))
	if line, _ := io.ReadAll(refused); !strings.Contains(string(line), "logging in at once") {
		t.Errorf("the second connection was not refused: %q", line)
	}
	refused.Close()

	var body string
	deadline := time.Now().Add(10 * time.Second)
	for {
		io.WriteString(in, "\x1b[D\x1b[A\x1b[C\x1b[B")
		body = httpGet(t, base+"/metrics").body
		if metric(body, `ssh2048_keystroke_to_frame_seconds_count`) > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	for series, atLeast := range map[string]float64{
		`ssh2048_keystroke_to_frame_seconds_count`:                    1,
		`ssh2048_moves_committed_total`:                               6,
		`ssh2048_sessions_open{kind="bot"}`:                           1,
		`ssh2048_sessions_open{kind="game"}`:                          1,
		`ssh2048_connections_open`:                                    2,
		`ssh2048_connections_refused_total{reason="unauthenticated"}`: 1,
		`ssh2048_db_commit_duration_seconds_count`:                    6,
		`ssh2048_db_commit_group_size_count`:                          6,
		`ssh2048_db_write_duration_seconds_count`:                     6,
		`ssh2048_games_in_play`:                                       2,
		`ssh2048_http_requests_total{code="200",handler="healthz"}`:   1,
		`go_goroutines`: 1,
	} {
		if got := metric(body, series); got < atLeast {
			t.Errorf("%s = %v, want at least %v", series, got, atLeast)
		}
	}
	// The server's collector setting (serve.go), unless the test's own
	// environment sets GOGC for the process too.
	if os.Getenv("GOGC") == "" {
		if got := metric(body, `go_gc_gogc_percent`); got != collectorPercent {
			t.Errorf("go_gc_gogc_percent = %v, want %d", got, collectorPercent)
		}
	}
	if strings.Contains(body, `"player"`) || strings.Contains(body, "127.0.0.1") {
		t.Errorf("/metrics names a player or an address:\n%s", body)
	}

	resp := httpGet(t, base+"/api/scores/4/bot")
	var rows []wire.ScoreEntry
	if err := json.Unmarshal([]byte(resp.body), &rows); err != nil || len(rows) != 1 || !strings.HasPrefix(rows[0].Name, store.GeneratedPrefix) || rows[0].Moves != botState.Moves {
		// The bot connected as "player", a generic login: its account is
		// given a generated name (docs/accounts.md).
		t.Errorf("/api/scores/4/bot: %v %s", err, resp.body)
	}
}

type httpResponse struct {
	code int
	body string
}

func httpGet(t *testing.T, url string) httpResponse {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return httpResponse{resp.StatusCode, string(b)}
}

// metric is the value of one series in the text exposition format, or -1.
func metric(body, series string) float64 {
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindStringSubmatch(body)
	if m == nil {
		return -1
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return -1
	}
	return v
}
