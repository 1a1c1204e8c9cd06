package server_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/engine/ai"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/server/servertest"
	gossh "golang.org/x/crypto/ssh"
)

// countingEvaluator is an AI whose searches wait until the test ends, and
// that counts the searches waiting: one for each review being made.
type countingEvaluator struct {
	waiting atomic.Int64
	release chan struct{}
}

func (e *countingEvaluator) Evaluate(ctx context.Context, _ engine.Board, _ int) (ai.Evaluation, error) {
	e.waiting.Add(1)
	defer e.waiting.Add(-1)
	select {
	case <-e.release:
	case <-ctx.Done():
	}
	return ai.Evaluation{}, errors.New("released")
}

// dialPaced connects with key, waiting its turn under the address's
// connection rate (--conn-rate-per-ip) when refused.
func dialPaced(t *testing.T, addr, user string, key gossh.Signer) *gossh.Client {
	t.Helper()
	for tries := 0; ; tries++ {
		c, err := gossh.Dial("tcp", addr, &gossh.ClientConfig{User: user, Auth: []gossh.AuthMethod{gossh.PublicKeys(key)},
			HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 5 * time.Second})
		if err == nil {
			t.Cleanup(func() { c.Close() })
			return c
		}
		if tries == 50 {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestReviewsOfOneAddressAreBounded: a review of an ended game goes on
// once its asker has left (it is stored for the next), and one review a
// player (game.ErrReviewBusy) binds no one: a key is a new player, free
// to make. One address that asks with a new key each time for a game of
// its choice (any ended game, anyone's) and leaves at once used to have
// the server make as many reviews as it liked, each a search after
// another for minutes (hours for a long game), past the connections the
// address may hold. Past game.ReviewsPerNetwork the address is refused
// with a line saying why (status 1); another address is not.
func TestReviewsOfOneAddressAreBounded(t *testing.T) {
	ev := &countingEvaluator{release: make(chan struct{})}
	t.Cleanup(func() { close(ev.release) })
	s := servertest.StartGames(t, t.TempDir(), "127.0.0.1:0", []game.Option{game.WithReviews(ev)}, noBotRate)
	ts := &testServer{srv: s.Srv, store: s.Store, addr: s.Addr, dir: s.Dir, logs: s.Logs}

	// Ended games to ask for: anyone's will do; these are one player's.
	const asks = game.ReviewsPerNetwork + 3
	ownerKey := newKey(t)
	if r := run(t, ts.dial(t, "owner", ownerKey), "whoami", ""); r.code != 0 {
		t.Fatalf("whoami: %+v", r)
	}
	ctx := context.Background()
	owner, err := ts.store.FindPlayer(ctx, gossh.FingerprintSHA256(ownerKey.PublicKey()))
	if err != nil {
		t.Fatal(err)
	}
	var games []int64
	for range asks + 1 {
		games = append(games, storedEndedGame(t, ts.store, owner.ID))
	}

	// One address, the server's default limits: a new key each time,
	// asks, and leaves as soon as the review is being made.
	for i, id := range games[:asks] {
		c := dialPaced(t, ts.addr, fmt.Sprintf("asker%d", i), newKey(t))
		if i >= game.ReviewsPerNetwork {
			r := run(t, c, fmt.Sprintf("review %d", id), "")
			if r.code != 1 || !strings.Contains(r.stderr, "review: too many reviews asked for from your address are still being made") {
				t.Fatalf("ask %d from one address, past its bound: %+v; want status 1 and why", i+1, r)
			}
			c.Close()
			continue
		}
		sess, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		var stderr syncBuffer
		sess.Stderr = &stderr
		if err := sess.Start(fmt.Sprintf("review %d", id)); err != nil {
			t.Fatal(err)
		}
		want := int64(i + 1)
		waitFor(t, fmt.Sprintf("review %d being made", i+1), func() bool { return ev.waiting.Load() >= want })
		sess.Close()
		c.Close()
	}
	waitFor(t, "the address's connections to close", func() bool { return ts.srv.Connections() <= 1 })
	if made := ev.waiting.Load(); made != game.ReviewsPerNetwork {
		t.Fatalf("after %d asks from one address, each with a new key, all gone: %d reviews being made, want %d", asks, made, game.ReviewsPerNetwork)
	}

	// Another address may still ask.
	other := servertest.DialFrom(t, ts.addr, "127.0.0.2")
	sess, err := other.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.Start(fmt.Sprintf("review %d", games[asks])); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "another address's review being made", func() bool { return ev.waiting.Load() == game.ReviewsPerNetwork+1 })
}
