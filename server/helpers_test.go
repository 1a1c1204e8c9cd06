package server_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/server/servertest"
	"github.com/ssh2048/ssh2048/store/sqlite"
	"github.com/ssh2048/ssh2048/wire"
	gossh "golang.org/x/crypto/ssh"
)

// testServer is a real server on 127.0.0.1:0 over a real SQLite file.
type testServer struct {
	srv   *server.Server
	store *sqlite.Store
	addr  string
	dir   string
	logs  *syncBuffer
}

type serverOption = func(*server.Config)

// startServer starts a server and stops it when the test ends. Its bots
// move as fast as the server answers (--bot-rate off): the tests use them
// to play games, and TestBotMoveRate tests the rate.
func startServer(t testing.TB, opts ...serverOption) *testServer {
	t.Helper()
	s := servertest.Start(t, t.TempDir(), "127.0.0.1:0", append([]serverOption{noBotRate}, opts...)...)
	return &testServer{srv: s.Srv, store: s.Store, addr: s.Addr, dir: s.Dir, logs: s.Logs}
}

// The clients are servertest's, shared with the admission's tests.
type syncBuffer = servertest.Buffer

var (
	newKey        = servertest.NewKey
	noCaps        = servertest.NoCaps
	noBotRate     = servertest.NoBotRate
	exitCode      = servertest.ExitCode
	waitFor       = servertest.WaitFor
	quitScreen    = servertest.QuitScreen
	ptyCommand    = servertest.PTY
	dialRaw       = servertest.DialRaw
	dialFrom      = servertest.DialFrom
	dialGuestFrom = servertest.DialGuestFrom
	dialKeyFrom   = servertest.DialKeyFrom
	newRelay      = servertest.NewRelay
)

// dial connects with a public key.
func (ts *testServer) dial(t testing.TB, user string, key gossh.Signer) *gossh.Client {
	t.Helper()
	return servertest.DialWith(t, ts.addr, user, gossh.PublicKeys(key))
}

// dialGuest connects without a key, through keyboard-interactive.
func (ts *testServer) dialGuest(t testing.TB) *gossh.Client {
	t.Helper()
	return servertest.DialGuest(t, ts.addr)
}

// ptySession opens a shell with a 100×30 PTY and returns its input and output.
func ptySession(t testing.TB, c *gossh.Client) (*gossh.Session, *syncBuffer, func(string)) {
	t.Helper()
	return servertest.PTY(t, c, 100, 30, "")
}

// ptySessionSized is ptySession with a terminal of w×h.
func ptySessionSized(t testing.TB, c *gossh.Client, w, h int) (*gossh.Session, *syncBuffer, func(string)) {
	t.Helper()
	return servertest.PTY(t, c, w, h, "")
}

// result is what an exec command produced.
type result struct {
	stdout, stderr string
	code           int
}

// run runs an exec command with the given input and waits for its end.
func run(t testing.TB, c *gossh.Client, cmd, stdin string) result {
	t.Helper()
	r := servertest.Run(t, c, cmd, stdin)
	return result{r.Stdout, r.Stderr, r.Code}
}

// state is a bot protocol line, error lines included.
type state struct {
	Board  [][]int `json:"board"`
	Score  int     `json:"score"`
	Moves  int     `json:"moves"`
	Moved  bool    `json:"moved"`
	Gained int     `json:"gained"`
	Won    bool    `json:"won"`
	Over   bool    `json:"over"`
	Error  *string `json:"error"`
}

// botSession is a running `bot` command.
type botSession struct {
	t      testing.TB
	s      *gossh.Session
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *syncBuffer
	done   chan error
}

func startBot(t testing.TB, c *gossh.Client, args string) *botSession {
	t.Helper()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	in, err := s.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	b := &botSession{t: t, s: s, in: in, out: bufio.NewReader(out), stderr: &syncBuffer{}, done: make(chan error, 1)}
	s.Stderr = b.stderr
	if err := s.Start(strings.TrimSpace("bot " + args)); err != nil {
		t.Fatal(err)
	}
	go func() { b.done <- s.Wait() }()
	return b
}

// read reads one protocol line; ok is false at the end of the output.
func (b *botSession) read() (st state, ok bool) {
	b.t.Helper()
	line, err := b.out.ReadBytes('\n')
	if errors.Is(err, io.EOF) && len(line) == 0 {
		return state{}, false
	}
	if err != nil {
		b.t.Fatalf("read bot output: %v (got %q)", err, line)
	}
	if err := json.Unmarshal(line, &st); err != nil {
		b.t.Fatalf("bot line %q: %v", line, err)
	}
	return st, true
}

// mustRead reads one line that must be there.
func (b *botSession) mustRead() state {
	b.t.Helper()
	st, ok := b.read()
	if !ok {
		b.t.Fatalf("bot output ended; stderr: %s", b.stderr.String())
	}
	return st
}

func (b *botSession) send(line string) {
	b.t.Helper()
	if _, err := io.WriteString(b.in, line+"\n"); err != nil {
		b.t.Fatalf("send %q: %v", line, err)
	}
}

// wait returns the session's exit status.
func (b *botSession) wait() int {
	b.t.Helper()
	select {
	case err := <-b.done:
		return exitCode(b.t, err)
	case <-time.After(10 * time.Second):
		b.t.Fatal("bot session did not end")
		return -1
	}
}

// finish closes the bot's input, which keeps the game, and checks that the
// session ends with status 0.
func (b *botSession) finish() {
	b.t.Helper()
	b.in.Close()
	if code := b.wait(); code != 0 {
		b.t.Fatalf("exit %d after closing input; stderr %q", code, b.stderr.String())
	}
}

// playBot plays b's game on from st, cycling through the four moves,
// until until says so or the game is over, and returns its last state.
func playBot(b *botSession, st state, until func(state) bool) state {
	b.t.Helper()
	for i := 0; !until(st) && !st.Over; i++ {
		b.send(engine.Directions()[i%4].String())
		st = b.mustRead()
	}
	return st
}

// endedBotGame plays c's bot game of size to its end, cycling through the
// four moves, and returns its last state and its id (the player's only
// bot game of that size on the board).
func endedBotGame(t testing.TB, c *gossh.Client, size int) (state, string) {
	t.Helper()
	b, st := botGame(t, c, size, func(st state) bool { return st.Over })
	if code := b.wait(); code != wire.ExitOK {
		t.Fatalf("bot ended with %d", code)
	}
	return st, botGameID(t, c, size)
}

// liveBotGame plays moves moves of c's bot game of size and returns its
// session, still playing, and its id.
func liveBotGame(t testing.TB, c *gossh.Client, size, moves int) (*botSession, string) {
	t.Helper()
	b, _ := botGame(t, c, size, func(st state) bool { return st.Moves >= moves })
	return b, botGameID(t, c, size)
}

// botGame plays c's bot game of size, cycling through the four moves,
// until done says so.
func botGame(t testing.TB, c *gossh.Client, size int, done func(state) bool) (*botSession, state) {
	t.Helper()
	b := startBot(t, c, fmt.Sprintf("--size %d", size))
	st := b.mustRead()
	dirs := []string{"left", "up", "right", "down"}
	for i := 0; !done(st); i++ {
		b.send(dirs[i%4])
		st = b.mustRead()
	}
	return b, st
}

// botGameID is the id of c's bot game of size, its only one on the board.
func botGameID(t testing.TB, c *gossh.Client, size int) string {
	t.Helper()
	var rows []wire.ScoreEntry
	out := run(t, c, fmt.Sprintf("scores --size %d --bots --json", size), "")
	if err := json.Unmarshal([]byte(out.stdout), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("scores: %v %q", err, out.stdout)
	}
	return strconv.FormatInt(rows[0].GameID, 10)
}
