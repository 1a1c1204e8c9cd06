package server_test

// A login whose lookup straddles the moment a node's bus listens again
// (store.MergeWatcher's missed): the node's catch-up (endMissedMerges)
// lists the sessions open before the login has one, and the login read
// its account before a link the node did not hear of deleted it.

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/ssh2048/ssh2048/server/servertest"
	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/postgres"
	"github.com/ssh2048/ssh2048/wire"
	gossh "golang.org/x/crypto/ssh"
)

// TestLateLoginOnANodeThatMissedTheMergeEnds: alpha's login looks its
// key's account up on a node, and waits there; the node's bus is down
// while alpha's key joins bob's account, and listens again; the node
// asks which of its open sessions' accounts are gone (carl's bot's),
// and only then does alpha's login reach its session, a history screen,
// which opens no game. It ends with the line and status 3, as the
// sessions the node asked about would have; it was left open, playing
// as the account deleted.
func TestLateLoginOnANodeThatMissedTheMergeEnds(t *testing.T) {
	tests := []struct {
		name  string
		nodes func(t *testing.T) lateLoginNodes
	}{
		{name: "one node", nodes: func(t *testing.T) lateLoginNodes {
			ts, held := startHeldLogins(t, true)
			return lateLoginNodes{
				here: ts, there: ts, held: held.loginHold, store: held,
				// Through the store: a link over SSH here would leave its
				// own session, on the account deleted, for the catch-up
				// to find.
				link: func(t *testing.T, key, into gossh.Signer) {
					t.Helper()
					hash, _ := store.LinkCodeHash(linkCodeOf(t, accountServer{ts, nil}, into))
					if _, err := held.Link(context.Background(), hash, gossh.FingerprintSHA256(key.PublicKey()), false); err != nil {
						t.Fatalf("link alpha's key to bob's account: %v", err)
					}
				},
				cut: func() (listen func()) { return held.relisten },
			}
		}},
		{name: "two nodes on postgres", nodes: func(t *testing.T) lateLoginNodes {
			url := pgDatabase(t)
			const deafRole = "node_there"
			admin := pgAdmin(t, url)
			pgExec(t, admin, "CREATE ROLE "+deafRole+" LOGIN SUPERUSER")
			here := pgNode(t, url, false)
			there, held := pgHeldNode(t, urlAs(t, url, deafRole))
			return lateLoginNodes{
				here: here, there: there, held: held.loginHold, store: held,
				link: func(t *testing.T, key, into gossh.Signer) {
					t.Helper()
					code := linkCodeOf(t, accountServer{here, nil}, into)
					if r := run(t, here.dial(t, "alpha", key), "link "+code, ""); r.code != wire.ExitOK {
						t.Fatalf("alpha's key joins bob's account: %+v", r)
					}
				},
				cut: func() (listen func()) { return cutBus(t, admin, deafRole) },
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := tt.nodes(t)
			bobKey, alphaKey, carlKey := n.here.visited(t, "bob"), n.here.visited(t, "alpha"), newKey(t)
			carl := startBot(t, n.there.dial(t, "carl", carlKey), "--size 4")
			carl.mustRead()
			carlAccount, err := n.store.FindPlayer(context.Background(), "carl")
			if err != nil {
				t.Fatal(err)
			}

			n.held.hold(gossh.FingerprintSHA256(alphaKey.PublicKey()))
			alpha := openScreen(t, n.there.dial(t, "alpha", alphaKey), "history", 100, 30)
			n.held.waitLooked(t)
			listen := n.cut()
			n.link(t, alphaKey, bobKey)
			n.held.forgetAsked()
			listen()
			waitFor(t, "the node to ask whether carl's account is gone", func() bool {
				return n.held.askedAbout(store.AccountID(carlAccount.ID))
			})
			n.held.let()

			if status := alpha.wait(); status != wire.ExitTakenOver || !strings.Contains(alpha.text(), session.MovedText) {
				t.Errorf("alpha's history screen, whose login read the account merged away: status %d, screen\n%s\nwant %d and %q",
					status, alpha.text(), wire.ExitTakenOver, session.MovedText)
			}
			carl.finish()
		})
	}
}

// lateLoginNodes are the nodes of TestLateLoginOnANodeThatMissedTheMergeEnds.
type lateLoginNodes struct {
	here, there *testServer     // bob's and alpha's keys are made here; alpha logs in there
	held        *loginHold      // there's
	store       store.Moderator // there's
	link        func(t *testing.T, key, into gossh.Signer)
	// cut has there miss what links tell until listen, after which its
	// bus listens again.
	cut func() (listen func())
}

// pgHeldNode is pgNode over a heldPostgres store.
func pgHeldNode(t *testing.T, url string) (*testServer, *heldPostgres) {
	t.Helper()
	var st *heldPostgres
	s := servertest.StartOver(t, t.TempDir(), "127.0.0.1:0", func(log *slog.Logger) (servertest.Backing, error) {
		p, err := postgres.Open(context.Background(), url, postgres.WithLogger(log))
		st = &heldPostgres{Store: p, loginHold: newLoginHold(false)}
		return st, err
	}, noBotRate)
	return &testServer{srv: s.Srv, addr: s.Addr, dir: s.Dir, logs: s.Logs}, st
}

// heldPostgres is a PostgreSQL store with a loginHold.
type heldPostgres struct {
	*postgres.Store
	*loginHold
}

func (h *heldPostgres) UpsertPlayer(ctx context.Context, fingerprint, keyType, rawName string) (store.Player, error) {
	return h.upsert(fingerprint, func() (store.Player, error) { return h.Store.UpsertPlayer(ctx, fingerprint, keyType, rawName) })
}

func (h *heldPostgres) OnAccountsMerged(merged func(store.AccountID), missed func()) func() {
	return h.onMerged(merged, missed, h.Store.OnAccountsMerged)
}

func (h *heldPostgres) GoneAccounts(ctx context.Context, ids []store.AccountID) ([]store.AccountID, error) {
	h.noteAsked(ids)
	return h.Store.GoneAccounts(ctx, ids)
}
