package servertest

import (
	"bytes"
	"context"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/moderation"
	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/store"
	gossh "golang.org/x/crypto/ssh"
)

// The clients of the tests: SSH logins with a key or as a guest, from any
// loopback address (the per-address limits count 127.0.0.2 apart from
// 127.0.0.1), exec commands run to their end, PTY sessions, and raw TCP.
// The server's tests and the admission's share them.

// NoCaps turns the caps off, for tests of something else that open many
// connections from 127.0.0.1.
func NoCaps(c *server.Config) {
	c.Limits.MaxConns, c.Limits.MaxUnauthPerIP, c.Limits.ConnRatePerIP, c.Limits.MaxConnsPerIP = 0, 0, 0, 0
	c.Limits.LoginRate = 0
}

// NoBotRate turns --bot-rate off: bots that play whole games move as fast
// as the server answers.
func NoBotRate(c *server.Config) { c.Limits.BotRate = 0 }

// Dial connects to the server with a public key.
func (s *Server) Dial(tb testing.TB, user string, key gossh.Signer) *gossh.Client {
	tb.Helper()
	return DialWith(tb, s.Addr, user, gossh.PublicKeys(key))
}

// DialGuest connects to the server without a key.
func (s *Server) DialGuest(tb testing.TB) *gossh.Client {
	tb.Helper()
	return DialGuest(tb, s.Addr)
}

// DialGuest connects to addr without a key, through keyboard-interactive.
func DialGuest(tb testing.TB, addr string) *gossh.Client {
	tb.Helper()
	return DialWith(tb, addr, "visitor", gossh.KeyboardInteractive(
		func(_, _ string, questions []string, _ []bool) ([]string, error) {
			if len(questions) != 0 {
				return nil, errors.New("guest login asked questions")
			}
			return nil, nil
		}))
}

// DialWith connects to addr as user with auth, closed at the end of the
// test.
func DialWith(tb testing.TB, addr, user string, auth gossh.AuthMethod) *gossh.Client {
	tb.Helper()
	c, err := gossh.Dial("tcp", addr, &gossh.ClientConfig{
		User:            user,
		Auth:            []gossh.AuthMethod{auth},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(),
		Timeout:         5 * time.Second,
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

// Result is what an exec command produced.
type Result struct {
	Stdout, Stderr string
	Code           int
}

// Run runs an exec command with the given input and waits for its end.
func Run(tb testing.TB, c *gossh.Client, cmd, stdin string) Result {
	tb.Helper()
	s, err := c.NewSession()
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	var out, errOut bytes.Buffer
	s.Stdin = strings.NewReader(stdin)
	s.Stdout, s.Stderr = &out, &errOut
	code := ExitCode(tb, s.Run(cmd))
	return Result{out.String(), errOut.String(), code}
}

// ExitCode is the exit status of a session that ended with err.
func ExitCode(tb testing.TB, err error) int {
	tb.Helper()
	var ee *gossh.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitStatus()
	}
	tb.Fatalf("session: %v", err)
	return -1
}

// PTY opens a session with a w×h PTY running the exec command cmd ("": a
// shell), and returns its output and a function that types keys.
func PTY(tb testing.TB, c *gossh.Client, w, h int, cmd string) (*gossh.Session, *Buffer, func(string)) {
	tb.Helper()
	s, err := c.NewSession()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	if err := s.RequestPty("xterm-256color", h, w, gossh.TerminalModes{}); err != nil {
		tb.Fatal(err)
	}
	in, err := s.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out := &Buffer{}
	s.Stdout = out
	if cmd == "" {
		err = s.Shell()
	} else {
		err = s.Start(cmd)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return s, out, func(keys string) { in.Write([]byte(keys)) }
}

// QuitScreen sends "q" until the session ends, and returns its exit status.
func QuitScreen(tb testing.TB, s *gossh.Session, send func(string)) int {
	tb.Helper()
	done := make(chan error, 1)
	go func() { done <- s.Wait() }()
	deadline := time.After(10 * time.Second)
	for {
		send("q")
		select {
		case err := <-done:
			return ExitCode(tb, err)
		case <-time.After(200 * time.Millisecond):
		case <-deadline:
			tb.Fatal("the screen did not quit")
		}
	}
}

// WaitFor waits until cond holds, for at most 10 seconds.
func WaitFor(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// DialRaw opens a TCP connection from the loopback address from (any of
// 127.0.0.0/8 works on Linux; "" for the default), closed at the end of
// the test.
func DialRaw(tb testing.TB, addr, from string) net.Conn {
	tb.Helper()
	d := net.Dialer{Timeout: 5 * time.Second}
	if from != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(from)}
	}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

// DialFrom logs in with a fresh key from a loopback address.
func DialFrom(tb testing.TB, addr, from string) *gossh.Client {
	tb.Helper()
	raw := DialRaw(tb, addr, from)
	cc, chans, reqs, err := gossh.NewClientConn(raw, addr, &gossh.ClientConfig{
		User: "p", Auth: []gossh.AuthMethod{gossh.PublicKeys(NewKey(tb))},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(),
	})
	if err != nil {
		tb.Fatalf("login from %s: %v", from, err)
	}
	c := gossh.NewClient(cc, chans, reqs)
	tb.Cleanup(func() { c.Close() })
	return c
}

// DialGuestFrom logs in as a guest from a loopback address, and returns
// what the server's keyboard-interactive challenge said.
func DialGuestFrom(addr, from string) (*gossh.Client, string, error) {
	return dialAuthFrom(addr, from, nil)
}

// DialKeyFrom logs in with key from a loopback address; a client that
// offers keyboard-interactive too, as OpenSSH does, so that it hears why
// when the key is refused.
func DialKeyFrom(addr, from string, key gossh.Signer) (*gossh.Client, string, error) {
	return dialAuthFrom(addr, from, key)
}

func dialAuthFrom(addr, from string, key gossh.Signer) (*gossh.Client, string, error) {
	var told string
	auth := []gossh.AuthMethod{gossh.KeyboardInteractive(func(_, instruction string, _ []string, _ []bool) ([]string, error) {
		told = instruction
		return nil, nil
	})}
	if key != nil {
		auth = append([]gossh.AuthMethod{gossh.PublicKeys(key)}, auth...)
	}
	d := net.Dialer{Timeout: 5 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	raw, err := d.Dial("tcp", addr)
	if err != nil {
		return nil, "", err
	}
	cc, chans, reqs, err := gossh.NewClientConn(raw, addr, &gossh.ClientConfig{
		User: "p", Auth: auth, HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 5 * time.Second,
	})
	if err != nil {
		raw.Close()
		return nil, told, err
	}
	return gossh.NewClient(cc, chans, reqs), told, nil
}

// Relay forwards one TCP connection to the server until frozen; frozen, it
// reads both sides and forwards nothing, like a peer whose network is gone.
// Muted, it forwards only what the server sends, like a client that is
// stuck but whose kernel still takes what arrives.
type Relay struct {
	Addr     string // where the client connects
	Frozen   atomic.Bool
	Muted    atomic.Bool
	UpClosed chan struct{} // the server closed its side

	// freezeAfterUp, set by FreezeAfterNextUp, freezes the relay once it
	// has forwarded what the client sends next; frozeAt is when.
	freezeAfterUp atomic.Bool
	frozeAt       chan time.Time
}

// FreezeAfterNextUp freezes the relay right after it forwards the
// client's next bytes to the server (a keepalive's reply, for a client
// that sends nothing else), and returns when that happens: a freeze at a
// known point rather than at any moment, where a request the client was
// about to answer may be caught half-way.
func (r *Relay) FreezeAfterNextUp() <-chan time.Time {
	r.freezeAfterUp.Store(true)
	return r.frozeAt
}

// NewRelay listens for the one connection it relays to target.
func NewRelay(tb testing.TB, target string) *Relay {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { l.Close() })
	r := &Relay{Addr: l.Addr().String(), UpClosed: make(chan struct{}), frozeAt: make(chan time.Time, 1)}
	go func() {
		down, err := l.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", target)
		if err != nil {
			down.Close()
			return
		}
		tb.Cleanup(func() { down.Close(); up.Close() })
		pipe := func(dst, src net.Conn, closed chan struct{}, mute *atomic.Bool) {
			buf := make([]byte, 32<<10)
			for {
				n, err := src.Read(buf)
				if err != nil {
					if closed != nil {
						close(closed)
					}
					return
				}
				if !r.Frozen.Load() && (mute == nil || !mute.Load()) {
					dst.Write(buf[:n])
					if dst == up && r.freezeAfterUp.CompareAndSwap(true, false) {
						r.Frozen.Store(true)
						select { // one freeze an arming; frozen, nothing more goes up
						case r.frozeAt <- time.Now():
						default:
						}
					}
				}
			}
		}
		go pipe(up, down, nil, &r.Muted)
		go pipe(down, up, r.UpClosed, nil)
	}()
	return r
}

// Moderated gives the server a ban list over its store, read again at
// once after each admin write, and makes admins the players of keys (the
// --admin-keys file's, as serve syncs them).
func Moderated(tb testing.TB, admins ...gossh.PublicKey) func(*server.Config) {
	return func(c *server.Config) {
		tb.Helper()
		ms, ok := c.Games.Store().(store.Moderator)
		if !ok {
			tb.Fatal("the store keeps no moderation")
		}
		var keys []store.AdminKey
		for _, k := range admins {
			keys = append(keys, store.AdminKey{Fingerprint: gossh.FingerprintSHA256(k), KeyType: k.Type(), Comment: "sysop"})
		}
		if err := ms.SyncAdminKeys(context.Background(), keys); err != nil {
			tb.Fatal(err)
		}
		bans, err := moderation.NewBanList(context.Background(), ms, c.Logger)
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(bans.Close)
		c.Bans = bans
	}
}
