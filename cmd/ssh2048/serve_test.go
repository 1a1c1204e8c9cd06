package main

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/server/admission"
	"github.com/ssh2048/ssh2048/server/servertest"
	gossh "golang.org/x/crypto/ssh"
)

// TestMain removes the binary the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// buildBinary builds ssh2048 once for the tests that run the real thing.
func buildBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ssh2048-test-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "ssh2048")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// process is a running ssh2048 serve.
type process struct {
	cmd      *exec.Cmd
	addr     string
	httpAddr string             // with --http: the web server's address
	opsAddr  string             // with --metrics: the operator's endpoints' address
	logs     *servertest.Buffer // every log line so far
	exited   chan error
}

// startProcess runs the binary on 127.0.0.1:0 and waits until it listens.
func startProcess(t *testing.T, bin, data string, env ...string) *process {
	t.Helper()
	return startProcessAt(t, bin, data, "127.0.0.1:0", env...)
}

// logTail is how many of a failed test's server log lines are shown.
const logTail = 300

// lastLines returns the last n lines of text.
func lastLines(text string, n int) string {
	lines := strings.SplitAfter(text, "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "")
}

// startProcessAt runs the binary on listen and waits until it listens.
func startProcessAt(t *testing.T, bin, data, listen string, env ...string) *process {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--listen", listen, "--data", data, "--log-format", "json")
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{cmd: cmd, logs: &servertest.Buffer{}, exited: make(chan error, 1)}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-p.exited
		}
		if t.Failed() {
			// What the server said is often the only clue to a failure
			// seen once, in CI.
			t.Logf("log of the server on %s (its last %d lines):\n%s", cmp.Or(p.addr, listen), logTail, lastLines(p.logs.String(), logTail))
		}
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.logs.Write(append(sc.Bytes(), '\n'))
			var line struct{ Msg, Addr, Play string }
			if json.Unmarshal(sc.Bytes(), &line) == nil {
				switch line.Msg {
				case "listening http": // before "listening"
					p.httpAddr = line.Addr
				case "listening metrics": // before "listening" too
					p.opsAddr = line.Addr
				case "listening":
					if _, port, _ := net.SplitHostPort(line.Addr); line.Play != "ssh -p "+port+" 127.0.0.1" {
						t.Errorf("the listening line does not say how to connect: %s", sc.Bytes())
					}
					addr <- line.Addr
				}
			}
		}
		p.exited <- cmd.Wait()
	}()
	select {
	case p.addr = <-addr:
	case err := <-p.exited:
		t.Fatalf("server exited: %v\n%s", err, p.logs.String())
	case <-time.After(30 * time.Second):
		t.Fatal("server did not start listening")
	}
	return p
}

// clientKey returns a fresh ed25519 client key.
func clientKey(t *testing.T) gossh.Signer { return servertest.NewKey(t) }

// dial connects and reports the host key the server showed.
func dial(t *testing.T, addr string, key gossh.Signer, hostKey *string) *gossh.Client {
	t.Helper()
	c, err := gossh.Dial("tcp", addr, &gossh.ClientConfig{
		User: "player", Auth: []gossh.AuthMethod{gossh.PublicKeys(key)}, Timeout: 5 * time.Second,
		HostKeyCallback: func(_ string, _ net.Addr, k gossh.PublicKey) error {
			*hostKey = gossh.FingerprintSHA256(k)
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// bot is a minimal bot protocol client.
type bot struct {
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *bytes.Buffer
	done   chan error
}

type botState struct {
	Board [][]int
	Score int
	Moves int
}

func startBot(t *testing.T, c *gossh.Client) *bot {
	t.Helper()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	in, _ := s.StdinPipe()
	out, _ := s.StdoutPipe()
	b := &bot{in: in, out: bufio.NewReader(out), stderr: &bytes.Buffer{}, done: make(chan error, 1)}
	s.Stderr = b.stderr
	if err := s.Start("bot"); err != nil {
		t.Fatal(err)
	}
	go func() { b.done <- s.Wait() }()
	return b
}

func (b *bot) read(t *testing.T) botState {
	t.Helper()
	line, err := b.out.ReadBytes('\n')
	if err != nil {
		t.Fatalf("bot output: %v", err)
	}
	var st botState
	if err := json.Unmarshal(line, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestServeSIGTERM runs the real binary under a fake systemd: it must
// report READY=1, and on SIGTERM STOPPING=1, tell the open sessions, keep
// their games, and exit 0 within 10 s. A restart on the same data reuses
// the host key and resumes the game.
func TestServeSIGTERM(t *testing.T) {
	bin := buildBinary(t)
	data := filepath.Join(t.TempDir(), "data")
	sockPath := filepath.Join(t.TempDir(), "notify.sock")
	sock, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sockPath, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer sock.Close()
	notifications := make(chan string, 10)
	go func() {
		buf := make([]byte, 256)
		for {
			n, err := sock.Read(buf)
			if err != nil {
				return
			}
			notifications <- string(buf[:n])
		}
	}()
	expectNotify := func(want string) {
		t.Helper()
		select {
		case got := <-notifications:
			if got != want {
				t.Fatalf("sd_notify %q, want %q", got, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no sd_notify %q", want)
		}
	}

	p := startProcess(t, bin, data, "NOTIFY_SOCKET="+sockPath)
	expectNotify("READY=1")
	info, err := os.Stat(filepath.Join(data, server.HostKeyFile))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("host key: %v, mode %v", err, info.Mode())
	}

	key := clientKey(t)
	var hostKey1, hostKey2 string
	c := dial(t, p.addr, key, &hostKey1)
	b := startBot(t, c)
	last := b.read(t)
	for _, d := range []string{"up", "left", "down", "right", "up", "left"} {
		b.in.Write([]byte(d + "\n"))
		last = b.read(t)
	}
	idle := startBot(t, dial(t, p.addr, clientKey(t), new(string))) // a second, idle session
	idle.read(t)

	start := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	expectNotify("STOPPING=1")
	for _, s := range []*bot{b, idle} {
		var ee *gossh.ExitError
		if err := <-s.done; !errors.As(err, &ee) || ee.ExitStatus() != 4 || !strings.Contains(s.stderr.String(), "saved") {
			t.Fatalf("session at SIGTERM: %v, stderr %q", err, s.stderr.String())
		}
	}
	select {
	case err := <-p.exited:
		if err != nil {
			t.Fatalf("exit: %v\n%s", err, p.logs.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("server still running 10 s after SIGTERM")
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("shutdown took %v", took)
	}
	if !strings.Contains(p.logs.String(), `"msg":"stopped"`) {
		t.Fatalf("no clean stop in the log:\n%s", p.logs.String())
	}

	p = startProcess(t, bin, data)
	b = startBot(t, dial(t, p.addr, key, &hostKey2))
	if hostKey1 == "" || hostKey1 != hostKey2 {
		t.Fatalf("host key changed across restarts: %s, %s", hostKey1, hostKey2)
	}
	resumed := b.read(t)
	if resumed.Moves != last.Moves || resumed.Score != last.Score || !equalBoards(resumed.Board, last.Board) {
		t.Fatalf("after restart %+v, want %+v", resumed, last)
	}
	b.in.Close()
	<-b.done
	p.cmd.Process.Signal(syscall.SIGINT)
	if err := <-p.exited; err != nil {
		t.Fatalf("exit after SIGINT: %v", err)
	}
}

func equalBoards(a, b [][]int) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

// TestServeLimitFlags: each limit flag and its environment variable reach
// admission.Limits as given, 0 meaning off; bad values are refused.
func TestServeLimitFlags(t *testing.T) {
	envs := []string{"SSH2048_LOGIN_GRACE", "SSH2048_MAX_CONNS", "SSH2048_MAX_UNAUTH_PER_IP", "SSH2048_CONN_RATE_PER_IP",
		"SSH2048_CONN_BURST_PER_IP", "SSH2048_KEEPALIVE_INTERVAL", "SSH2048_KEEPALIVE_MAX", "SSH2048_KEY_RATE",
		"SSH2048_MAX_SESSIONS_PER_CONN", "SSH2048_IDLE_TIMEOUT", "SSH2048_SESSION_RATE_PER_CONN",
		"SSH2048_MAX_CONNS_PER_IP", "SSH2048_KEY_RESERVE", "SSH2048_LOGIN_RATE", "SSH2048_MAX_CONNS_PER_56", "SSH2048_BOT_RATE"}
	defaults := admission.DefaultLimits()
	with := func(change func(*admission.Limits)) admission.Limits {
		l := defaults
		change(&l)
		return l
	}
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want admission.Limits
	}{
		{"defaults", nil, nil, defaults},
		{"flags", nil, []string{"--login-grace", "5s", "--max-conns", "50", "--max-unauth-per-ip", "3",
			"--conn-rate-per-ip", "0.5", "--conn-burst-per-ip", "4", "--keepalive-interval", "10s", "--keepalive-max", "5",
			"--key-rate", "20", "--max-sessions-per-conn", "2", "--idle-timeout", "1m", "--session-rate-per-conn", "0.5",
			"--max-conns-per-ip", "8", "--key-reserve", "25", "--login-rate", "120", "--max-conns-per-56", "16", "--bot-rate", "30"},
			admission.Limits{IdleTimeout: time.Minute, LoginGrace: 5 * time.Second, MaxConns: 50, MaxUnauthPerIP: 3,
				ConnRatePerIP: 0.5, ConnBurstPerIP: 4, KeepaliveInterval: 10 * time.Second, KeepaliveMax: 5,
				MaxSessionsPerConn: 2, SessionRatePerConn: 0.5, MaxConnsPerIP: 8, KeyReserve: 25, KeyRate: 20, LoginRate: 120,
				MaxConnsPer56: 16, BotRate: 30}},
		{"off", nil, []string{"--max-conns", "0", "--max-unauth-per-ip", "0", "--conn-rate-per-ip", "0",
			"--keepalive-interval", "0", "--key-rate", "0", "--max-sessions-per-conn", "0", "--idle-timeout", "0",
			"--session-rate-per-conn", "0", "--max-conns-per-ip", "0", "--key-reserve", "0", "--login-rate", "0",
			"--max-conns-per-56", "0", "--bot-rate", "0"},
			with(func(l *admission.Limits) {
				l.MaxConns, l.MaxUnauthPerIP, l.ConnRatePerIP, l.KeepaliveInterval, l.KeyRate, l.MaxSessionsPerConn, l.IdleTimeout = 0, 0, 0, 0, 0, 0, 0
				l.SessionRatePerConn, l.MaxConnsPerIP, l.KeyReserve, l.LoginRate = 0, 0, 0, 0
				l.MaxConnsPer56, l.BotRate = 0, 0
			})},
		{"environment, flags first", map[string]string{"SSH2048_LOGIN_GRACE": "7s", "SSH2048_MAX_CONNS": "9",
			"SSH2048_MAX_CONNS_PER_IP": "3", "SSH2048_KEY_RESERVE": "50", "SSH2048_LOGIN_RATE": "50", "SSH2048_BOT_RATE": "10"},
			[]string{"--max-conns", "11", "--key-reserve", "20"},
			with(func(l *admission.Limits) {
				l.LoginGrace, l.MaxConns, l.MaxConnsPerIP, l.KeyReserve, l.LoginRate = 7*time.Second, 11, 3, 20, 50
				l.BotRate = 10
			})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, k := range envs {
				t.Setenv(k, tt.env[k])
			}
			var errOut bytes.Buffer
			got, code, ok := parseServe(tt.args, io.Discard, &errOut)
			if !ok {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			if got.limits != tt.want {
				t.Fatalf("got %+v, want %+v", got.limits, tt.want)
			}
		})
	}
	for _, bad := range [][]string{{"--login-grace", "0"}, {"--max-conns", "-1"}, {"--conn-burst-per-ip", "0"},
		{"--keepalive-max", "0"}, {"--key-rate", "-3"}, {"--idle-timeout", "-1s"}, {"--key-reserve", "101"},
		{"--max-conns-per-ip", "-1"}, {"--session-rate-per-conn", "-1"}, {"--login-rate", "-5"},
		{"--max-conns-per-56", "-1"}, {"--bot-rate", "-1"}} {
		if _, code, ok := parseServe(bad, io.Discard, &bytes.Buffer{}); ok || code != 2 {
			t.Errorf("%v accepted", bad)
		}
	}
	t.Setenv("SSH2048_MAX_CONNS", "lots")
	if _, code, ok := parseServe(nil, io.Discard, &bytes.Buffer{}); ok || code != 2 {
		t.Error("a bad $SSH2048_MAX_CONNS was accepted")
	}
}

func TestPlayCommand(t *testing.T) {
	for _, tt := range []struct{ addr, want string }{
		{":23234", "ssh -p 23234 localhost"},
		{"0.0.0.0:23234", "ssh -p 23234 localhost"},
		{"[::]:22", "ssh localhost"},
		{"127.0.0.1:2222", "ssh -p 2222 127.0.0.1"},
		{"[::1]:23234", "ssh -p 23234 ::1"},
	} {
		addr, err := net.ResolveTCPAddr("tcp", tt.addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := playCommand(addr); got != tt.want {
			t.Errorf("playCommand(%s) = %q, want %q", tt.addr, got, tt.want)
		}
	}
}

// TestTuneCollector: the server's collector runs at collectorPercent,
// unless GOGC says otherwise.
func TestTuneCollector(t *testing.T) {
	was := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(was) })
	for _, tt := range []struct {
		gogc string
		want int
	}{
		{"", collectorPercent},
		{"150", 100}, // left as the runtime read it (100 here)
		{"off", 100},
	} {
		debug.SetGCPercent(100)
		tuneCollector(func(k string) string {
			if k == "GOGC" {
				return tt.gogc
			}
			return ""
		})
		if got := debug.SetGCPercent(100); got != tt.want {
			t.Errorf("GOGC=%q: percent %d, want %d", tt.gogc, got, tt.want)
		}
	}
}

// TestListeningLogsHostKey: the listening line gives the host key's
// fingerprint as `ssh-keygen -lf` prints it, the one players' ssh shows on
// first connect, so that an operator has it to publish.
func TestListeningLogsHostKey(t *testing.T) {
	bin := buildBinary(t)
	p := startProcess(t, bin, filepath.Join(t.TempDir(), "data"))
	var shown string
	dial(t, p.addr, clientKey(t), &shown).Close()
	var logged string
	for _, l := range strings.Split(p.logs.String(), "\n") {
		var line struct {
			Msg     string
			HostKey string `json:"host_key"`
		}
		if json.Unmarshal([]byte(l), &line) == nil && line.Msg == "listening" {
			logged = line.HostKey
		}
	}
	if logged == "" || logged != shown {
		t.Fatalf("listening line's host_key %q; the server shows %q", logged, shown)
	}
}
