package admission_test

import (
	"bufio"
	"testing"

	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/server/servertest"
	gossh "golang.org/x/crypto/ssh"
)

// The admission is tested end to end: a real server on 127.0.0.1:0, real
// clients from loopback addresses (servertest's).

// testServer is a real server on 127.0.0.1:0 over a real SQLite file.
type testServer struct {
	srv  *server.Server
	addr string
	logs *servertest.Buffer
}

// startServer starts a server with its limits changed by opts, and stops
// it when the test ends.
func startServer(t testing.TB, opts ...func(*server.Config)) *testServer {
	t.Helper()
	s := servertest.Start(t, t.TempDir(), "127.0.0.1:0", append([]func(*server.Config){servertest.NoBotRate}, opts...)...)
	return &testServer{srv: s.Srv, addr: s.Addr, logs: s.Logs}
}

// dial connects with a public key.
func (ts *testServer) dial(t testing.TB, user string, key gossh.Signer) *gossh.Client {
	t.Helper()
	return servertest.DialWith(t, ts.addr, user, gossh.PublicKeys(key))
}

var (
	newKey        = servertest.NewKey
	noCaps        = servertest.NoCaps
	waitFor       = servertest.WaitFor
	run           = servertest.Run
	dialRaw       = servertest.DialRaw
	dialFrom      = servertest.DialFrom
	dialGuestFrom = servertest.DialGuestFrom
	dialKeyFrom   = servertest.DialKeyFrom
	newRelay      = servertest.NewRelay
)

// ptySession opens a shell with a 100×30 PTY and returns its input and output.
func ptySession(t testing.TB, c *gossh.Client) (*gossh.Session, *servertest.Buffer, func(string)) {
	t.Helper()
	return servertest.PTY(t, c, 100, 30, "")
}

// runningSession starts a session on c that runs until its input closes
// (a bot, at 3×3) and waits for its first line; end closes its input and
// waits for it to end.
func runningSession(t *testing.T, c *gossh.Client) (end func()) {
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
	if err := s.Start("bot --size 3"); err != nil {
		t.Fatal(err)
	}
	if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
		t.Fatalf("the session's first line: %v", err)
	}
	return func() {
		t.Helper()
		in.Close()
		if code := servertest.ExitCode(t, s.Wait()); code != 0 {
			t.Fatalf("exit %d after closing input", code)
		}
	}
}
