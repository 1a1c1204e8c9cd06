package server_test

// A link deletes the account of the key that joins another (link CODE
// --merge; docs/accounts.md): every session open on the deleted account
// ends then, on every node, with one line and status 3, as a ban ends
// the banned's sessions. Left open, such a session played on as an
// account that was no more.

import (
	"context"
	"errors"
	"log/slog"
	neturl "net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/race"
	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/server/servertest"
	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/sqlite"
	"github.com/ssh2048/ssh2048/wire"
	gossh "golang.org/x/crypto/ssh"
)

// TestMergeEndsTheJoiningAccountsSessions: alpha's key joins bob's
// account with --merge while alpha has a game screen, a bot, a race and
// a spectator's screen open, and a guest watches alpha; bob plays on a
// bot and a game screen. Alpha's sessions end at once, each with the
// line and status 3 (the game screen with the terminal given back); the
// link's own session says that the key joined; bob's sessions and the
// guest's play on. On two nodes the sessions are on one node and the
// link is run on the other.
func TestMergeEndsTheJoiningAccountsSessions(t *testing.T) {
	opts := []serverOption{
		servertest.Races(race.WithTimes(200*time.Millisecond, 200*time.Millisecond, 8*time.Second)),
		func(c *server.Config) { c.Limits.KeyRate = 1000 },
	}
	t.Run("one node", func(t *testing.T) {
		ts := startServer(t, opts...)
		mergeEndsSessions(t, ts, ts)
	})
	t.Run("two nodes on postgres", func(t *testing.T) {
		nodes := pgNodes(t, 2, opts...)
		mergeEndsSessions(t, nodes[0], nodes[1])
	})
}

// mergeEndsSessions opens alpha's and bob's sessions there, merges
// alpha's account into bob's here, and checks which sessions end.
func mergeEndsSessions(t *testing.T, here, there *testServer) {
	t.Helper()
	bobKey, alphaKey := here.visited(t, "bob"), newKey(t)
	bob, alpha := there.dial(t, "bob", bobKey), there.dial(t, "alpha", alphaKey)

	bobBot := startBot(t, bob, "--size 4")
	bobState := playSome(t, bobBot, bobBot.mustRead(), 2)
	bobScreen := openScreen(t, bob, "play --size 3", 100, 30)
	bobScreen.waitText("bob's game screen", "Moves 0")

	alphas := openToEnd(t, there, "alpha", alpha, 160)

	code := linkCodeOf(t, accountServer{here, nil}, bobKey)
	r := run(t, here.dial(t, "alpha", alphaKey), "link "+code+" --merge", "")
	if r.code != wire.ExitOK || !strings.HasPrefix(r.stdout, "This key is now on bob's account") {
		t.Fatalf("alpha's key joins bob's account: %+v; want status 0 and the link's own line", r)
	}

	alphas.checkEnded(t, wire.ExitTakenOver, session.MovedText, "This key joined another account, which ends your race")
	// Bob, the account kept, plays on.
	playSome(t, bobBot, bobState, 2)
	bobBot.finish()
	bobScreen.send(arrowLeft + arrowUp + arrowRight + arrowDown)
	bobScreen.waitUntil("bob's move on his screen", func(s string) bool { return !strings.Contains(s, "Moves 0") })
	bobScreen.send("q")
	if code := bobScreen.wait(); code != wire.ExitOK {
		t.Errorf("bob's game screen: status %d, want 0", code)
	}
}

// TestLoginThatReadTheMergedAccountEnds: a login that looked its key's
// account up just before a link merged that account away reaches its
// session after the link has committed, naming an account that is no
// more; it is ended as the sessions open at the link are, with the line
// and status 3, rather than let in to play as the account deleted. (A
// plain link: a key with no games of its own joins without --merge, and
// its account is deleted all the same.)
func TestLoginThatReadTheMergedAccountEnds(t *testing.T) {
	ts, st := startHeldLogins(t, false)
	bobKey, alphaKey := ts.visited(t, "bob"), ts.visited(t, "alpha")

	st.hold(gossh.FingerprintSHA256(alphaKey.PublicKey()))
	bot := startBot(t, ts.dial(t, "alpha", alphaKey), "--size 4")
	st.linkWhileHeld(t, ts, alphaKey, bobKey)

	line := "ssh2048: " + session.MovedText
	if code := bot.wait(); code != wire.ExitTakenOver || strings.TrimSpace(bot.stderr.String()) != line {
		t.Errorf("alpha's bot, which looked up its account before the link: status %d, stderr %q; want %d and %q",
			code, bot.stderr.String(), wire.ExitTakenOver, line)
	}
}

// startHeldLogins starts a server over a heldLogins store; deaf: a store
// that tells of no merge, as deafSQLite, and says its bus listens again
// when the test has it (loginHold.relisten).
func startHeldLogins(t *testing.T, deaf bool, opts ...serverOption) (*testServer, *heldLogins) {
	t.Helper()
	dir := t.TempDir()
	var st *heldLogins
	s := servertest.StartOver(t, dir, "127.0.0.1:0", func(log *slog.Logger) (servertest.Backing, error) {
		sq, err := sqlite.Open(context.Background(), dir, sqlite.WithLogger(log))
		st = &heldLogins{Store: sq, loginHold: newLoginHold(deaf)}
		return st, err
	}, append([]serverOption{noBotRate}, opts...)...)
	return &testServer{srv: s.Srv, store: st.Store, addr: s.Addr, dir: s.Dir, logs: s.Logs}, st
}

// heldLogins is a SQLite store with a loginHold; while failMoves is
// set, it fails every move's write, as a database that errs does.
type heldLogins struct {
	*sqlite.Store
	*loginHold
	failMoves atomic.Bool
}

func (h *heldLogins) AppendMove(ctx context.Context, gameID int64, seq int, d engine.Direction, st store.MoveState) error {
	if h.failMoves.Load() {
		return errors.New("the test's store fails this move")
	}
	return h.Store.AppendMove(ctx, gameID, seq, d, st)
}

func (h *heldLogins) UpsertPlayer(ctx context.Context, fingerprint, keyType, rawName string) (store.Player, error) {
	return h.upsert(fingerprint, func() (store.Player, error) { return h.Store.UpsertPlayer(ctx, fingerprint, keyType, rawName) })
}

func (h *heldLogins) OnAccountsMerged(merged func(store.AccountID), missed func()) func() {
	return h.onMerged(merged, missed, h.Store.OnAccountsMerged)
}

func (h *heldLogins) GoneAccounts(ctx context.Context, ids []store.AccountID) ([]store.AccountID, error) {
	h.noteAsked(ids)
	return h.Store.GoneAccounts(ctx, ids)
}

// loginHold is what a store wrapped for these tests adds: its next
// login of one key, once it has looked its account up, waits for
// release before it answers; every account GoneAccounts is asked about
// is noted; and, deaf, it tells of no merge, and calls the server's
// missed only when the test says its bus listens again (relisten).
type loginHold struct {
	deaf    bool
	mu      sync.Mutex
	held    string // the key whose next login waits
	looked  chan struct{}
	release chan struct{}
	missed  func()            // the server's, kept by a deaf store
	asked   []store.AccountID // since forgetAsked
}

func newLoginHold(deaf bool) *loginHold {
	return &loginHold{deaf: deaf, looked: make(chan struct{}), release: make(chan struct{})}
}

// hold has the next login of the key with that fingerprint wait.
func (h *loginHold) hold(fingerprint string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.held = fingerprint
}

// waitLooked waits until the held login has looked its account up.
func (h *loginHold) waitLooked(t *testing.T) {
	t.Helper()
	select {
	case <-h.looked:
	case <-time.After(10 * time.Second):
		t.Fatal("the held login never looked its account up")
	}
}

// let lets the held login go on.
func (h *loginHold) let() { close(h.release) }

// linkWhileHeld links key (a plain link: its account has no games) to
// the account of into, once the key's held login has looked its account
// up, and lets that login go on.
func (h *loginHold) linkWhileHeld(t *testing.T, ts *testServer, key, into gossh.Signer) {
	t.Helper()
	h.waitLooked(t)
	code := linkCodeOf(t, accountServer{ts, nil}, into)
	if r := run(t, ts.dial(t, "linking", key), "link "+code, ""); r.code != wire.ExitOK {
		t.Fatalf("the held login's key joins the other account: %+v", r)
	}
	h.let()
}

// upsert is UpsertPlayer's: lookup, held if it is the held key's.
func (h *loginHold) upsert(fingerprint string, lookup func() (store.Player, error)) (store.Player, error) {
	h.mu.Lock()
	held := fingerprint != "" && fingerprint == h.held
	if held {
		h.held = ""
	}
	h.mu.Unlock()
	p, err := lookup()
	if held {
		close(h.looked)
		<-h.release
	}
	return p, err
}

// onMerged is OnAccountsMerged's: the store's own, unless deaf.
func (h *loginHold) onMerged(merged func(store.AccountID), missed func(), own func(func(store.AccountID), func()) func()) func() {
	if !h.deaf {
		return own(merged, missed)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.missed = missed
	return func() {}
}

// relisten tells the server, through a deaf store, that its bus listens
// again, as a PostgreSQL bus does once it has its connection back.
func (h *loginHold) relisten() {
	h.mu.Lock()
	missed := h.missed
	h.mu.Unlock()
	if missed != nil {
		missed()
	}
}

func (h *loginHold) noteAsked(ids []store.AccountID) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.asked = append(h.asked, ids...)
}

// forgetAsked forgets the accounts GoneAccounts was asked about so far.
func (h *loginHold) forgetAsked() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.asked = nil
}

// askedAbout reports whether GoneAccounts was asked about id since
// forgetAsked.
func (h *loginHold) askedAbout(id store.AccountID) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Contains(h.asked, id)
}

// TestMergeMissedByANodeEndsItsSessionsOnceItListensAgain: the bus of
// the node where alpha's bot plays loses its connection, and stays
// without one while alpha's key joins bob's account on the other node:
// the node misses the merge's notice, and alpha's bot plays on there.
// Once its bus listens again, the node asks which of its sessions'
// accounts are gone, and alpha's bot ends with the line and status 3, as
// if the node had heard of the merge.
func TestMergeMissedByANodeEndsItsSessionsOnceItListensAgain(t *testing.T) {
	url := pgDatabase(t)
	const deafRole = "node_there"
	admin := pgAdmin(t, url)
	pgExec(t, admin, "CREATE ROLE "+deafRole+" LOGIN SUPERUSER")
	here, there := pgNode(t, url, false), pgNode(t, urlAs(t, url, deafRole), false)

	bobKey, alphaKey := here.visited(t, "bob"), newKey(t)
	alpha := startBot(t, there.dial(t, "alpha", alphaKey), "--size 4")
	alphaState := playSome(t, alpha, alpha.mustRead(), 2)
	code := linkCodeOf(t, accountServer{here, nil}, bobKey)

	listen := cutBus(t, admin, deafRole)
	if r := run(t, here.dial(t, "alpha", alphaKey), "link "+code+" --merge", ""); r.code != wire.ExitOK {
		t.Fatalf("alpha's key joins bob's account: %+v", r)
	}
	// Deaf, the node lets alpha's bot play on its game, bob's now.
	playSome(t, alpha, alphaState, 1)
	listen()

	line := "ssh2048: " + session.MovedText
	if code := alpha.wait(); code != wire.ExitTakenOver || strings.TrimSpace(alpha.stderr.String()) != line {
		t.Errorf("alpha's bot on the node that missed the merge: status %d, stderr %q; want %d and %q",
			code, alpha.stderr.String(), wire.ExitTakenOver, line)
	}
}

// pgAdmin is a connection to the database at url, closed when the test
// ends.
func pgAdmin(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatalf("connect to %s: %v", url, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func pgExec(t *testing.T, conn *pgx.Conn, sql string) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// urlAs is the database URL url with role as its user.
func urlAs(t *testing.T, raw, role string) string {
	t.Helper()
	u, err := neturl.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	u.User = neturl.User(role)
	return u.String()
}

// cutBus ends the bus connection of the node that connects as role, and
// keeps the node from connecting again until listen: events sent
// meanwhile do not reach it. The role logs in again after listen, and
// the node's bus reconnects by itself.
func cutBus(t *testing.T, admin *pgx.Conn, role string) (listen func()) {
	t.Helper()
	pgExec(t, admin, "ALTER ROLE "+role+" NOLOGIN")
	listen = func() { pgExec(t, admin, "ALTER ROLE "+role+" LOGIN") }
	const buses = `FROM pg_stat_activity WHERE usename = $1 AND query LIKE 'LISTEN %'`
	if _, err := admin.Exec(context.Background(), `SELECT pg_terminate_backend(pid) `+buses, role); err != nil {
		t.Fatalf("terminate the bus of %s: %v", role, err)
	}
	waitFor(t, "the bus connection of "+role+" to end", func() bool {
		var n int
		err := admin.QueryRow(context.Background(), `SELECT count(*) `+buses, role).Scan(&n)
		return err == nil && n == 0
	})
	return listen
}
