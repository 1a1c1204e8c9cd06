package server_test

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/metrics"
	"github.com/ssh2048/ssh2048/moderation"
	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/server/servertest"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/web"
	"github.com/ssh2048/ssh2048/wire"
	gossh "golang.org/x/crypto/ssh"
)

// moderated is a server with an admin, and the game service it runs,
// for the web pages.
type moderated struct {
	*testServer
	games *game.Service
	admin *gossh.Client
	m     *metrics.Metrics
}

func startModerated(t *testing.T) *moderated {
	t.Helper()
	adminKey := newKey(t)
	md := &moderated{m: metrics.New()}
	md.testServer = startServer(t, servertest.Moderated(t, adminKey.PublicKey()), func(c *server.Config) {
		md.games = c.Games
		c.Observer = md.m
	})
	md.admin = md.dial(t, "root", adminKey)
	return md
}

// adminRun runs `admin …` as the admin and wants status want.
func (md *moderated) adminRun(t *testing.T, cmd string, want int) result {
	t.Helper()
	r := run(t, md.admin, "admin "+cmd, "")
	if r.code != want {
		t.Fatalf("admin %s: status %d, want %d: %+v", cmd, r.code, want, r)
	}
	return r
}

// visited is a new key whose player has connected once (ran scores), as
// name: their account is stored.
func (ts *testServer) visited(t *testing.T, name string) gossh.Signer {
	t.Helper()
	key := newKey(t)
	if r := run(t, ts.dial(t, name, key), "scores", ""); r.code != 0 {
		t.Fatalf("%s's first visit: %+v", name, r)
	}
	return key
}

// page is a web page as a fresh site shows it (the site caches boards).
func (md *moderated) page(t *testing.T, path string) string {
	t.Helper()
	site, err := web.New(web.Config{Games: md.games})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	site.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	body, _ := io.ReadAll(rec.Result().Body)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d", path, rec.Code)
	}
	return string(body)
}

// TestAdminIsUnknownToOthers: a player who is no admin, or a guest, gets
// from `admin` exactly what any unknown command gets, and help does not
// name it; the attempt is logged.
func TestAdminIsUnknownToOthers(t *testing.T) {
	md := startModerated(t)
	eve := md.dial(t, "eve", newKey(t))
	guest, _, err := dialGuestFrom(md.addr, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { guest.Close() })
	for _, c := range []*gossh.Client{eve, guest} {
		unknown := run(t, c, "frobnicate ban eve --reason x", "")
		for _, cmd := range []string{"admin ban eve --reason x", "admin", "admin help", "admin bans"} {
			r := run(t, c, cmd, "")
			want := strings.ReplaceAll(unknown.stderr, "frobnicate", "admin")
			if r.code != unknown.code || r.code != wire.ExitUsage || r.stdout != "" || r.stderr != want {
				t.Errorf("%q: %+v, want what an unknown command gets: %q", cmd, r, want)
			}
		}
		if r := run(t, c, "help", ""); strings.Contains(r.stdout, "admin") {
			t.Errorf("help names the admin commands:\n%s", r.stdout)
		}
	}
	if !strings.Contains(md.logs.String(), "admin command refused to a non-admin") {
		t.Errorf("the refused attempts are not logged:\n%s", md.logs.String())
	}
	if bans, _ := md.store.Bans(t.Context(), time.Now()); len(bans) != 0 {
		t.Fatalf("a non-admin's ban was stored: %+v", bans)
	}
}

// TestBanKeyOverSSH: an admin bans a player; their next ssh gets one line
// and its status, while another player's session plays on; unban lets
// them back; the audit log has both, with the reasons.
func TestBanKeyOverSSH(t *testing.T) {
	md := startModerated(t)
	eveKey := md.visited(t, "eve")
	bob := startBot(t, md.dial(t, "bob", newKey(t)), "")
	st := playSome(t, bob, bob.mustRead(), 4)

	r := md.adminRun(t, `ban eve --for 7d --show-reason --reason "spamming the board"`, wire.ExitOK)
	if !strings.Contains(r.stdout, "banned player #") || !strings.Contains(r.stdout, "eve until ") {
		t.Fatalf("ban said %q", r.stdout)
	}
	banned := run(t, md.dial(t, "eve", eveKey), "scores", "")
	if banned.code != wire.ExitBanned || banned.stdout != "" || strings.Count(banned.stderr, "\n") != 1 ||
		!strings.Contains(banned.stderr, "banned from this server until ") || !strings.Contains(banned.stderr, "spamming the board") {
		t.Fatalf("eve banned: %+v, want one line with until when and the reason, status %d", banned, wire.ExitBanned)
	}
	// Bob's session never noticed; a new session of his works too.
	playSome(t, bob, st, 4)
	if r := run(t, md.dial(t, "bob", newKey(t)), "scores", ""); r.code != 0 {
		t.Fatalf("another player after the ban: %+v", r)
	}
	if r := md.adminRun(t, "bans", wire.ExitOK); !strings.Contains(r.stdout, "eve until") || !strings.Contains(r.stdout, "(reason shown)") {
		t.Fatalf("bans: %q", r.stdout)
	}
	md.adminRun(t, `unban eve --reason "appealed"`, wire.ExitOK)
	if r := run(t, md.dial(t, "eve", eveKey), "scores", ""); r.code != 0 {
		t.Fatalf("eve after the unban: %+v", r)
	}
	audit := md.adminRun(t, "audit", wire.ExitOK).stdout
	if lines := strings.Split(strings.TrimSpace(audit), "\n"); len(lines) != 2 ||
		!strings.Contains(lines[0], "sysop (SHA256:") || !strings.Contains(lines[0], ": ban player #") || !strings.HasSuffix(lines[0], "spamming the board") ||
		!strings.Contains(lines[1], ": unban player #") || !strings.HasSuffix(lines[1], "appealed") {
		t.Fatalf("audit:\n%s", audit)
	}
	if got := counter(t, md.m, "ssh2048_connections_refused_total", "banned"); got != 1 {
		t.Errorf("refused as banned: %v, want 1", got)
	}
	if got := counter(t, md.m, "ssh2048_admin_actions_total", "ban"); got != 1 {
		t.Errorf("admin bans counted: %v, want 1", got)
	}
}

// counter is a counter's value for one label value.
func counter(t *testing.T, m *metrics.Metrics, name, label string) float64 {
	t.Helper()
	families, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, s := range f.GetMetric() {
			for _, l := range s.GetLabel() {
				if l.GetValue() == label {
					return s.GetCounter().GetValue()
				}
			}
		}
	}
	t.Fatalf("no %s{%s}", name, label)
	return 0
}

// TestBanRangeRefusedBeforeHandshake: a banned address range is turned
// away with its line before the SSH version exchange; other addresses
// log in as before.
func TestBanRangeRefusedBeforeHandshake(t *testing.T) {
	md := startModerated(t)
	md.adminRun(t, `ban 127.0.0.64/30 --reason "a scanner"`, wire.ExitOK)
	raw := dialRaw(t, md.addr, "127.0.0.65")
	_ = raw.SetReadDeadline(time.Now().Add(5 * time.Second))
	got, _ := io.ReadAll(raw)
	if want := "ssh2048: connections from your network are banned from this server.\r\n"; string(got) != want {
		t.Fatalf("from a banned range: %q, want %q and no SSH version", got, want)
	}
	if _, _, err := dialKeyFrom(md.addr, "127.0.0.66", newKey(t)); err == nil {
		t.Fatal("a login from a banned range succeeded")
	}
	c, _, err := dialKeyFrom(md.addr, "127.0.0.70", newKey(t))
	if err != nil {
		t.Fatalf("from outside the range: %v", err)
	}
	c.Close()
	if got := counter(t, md.m, "ssh2048_connections_refused_total", "banned_range"); got != 2 {
		t.Errorf("refused as a banned range: %v, want 2", got)
	}
}

// TestHideAndUnhideOverSSH: hide takes a game off scores --json and the
// web page, and unhide gives it its rank back.
func TestHideAndUnhideOverSSH(t *testing.T) {
	md := startModerated(t)
	rng := rand.New(rand.NewPCG(3, 3))
	bobKey := newKey(t)
	bob := startBot(t, md.dial(t, "bob", bobKey), "")
	ended := playToEnd(t, bob, bob.mustRead(), rng)
	carl := startBot(t, md.dial(t, "carl", newKey(t)), "")
	playSome(t, carl, carl.mustRead(), 4)
	viewer := md.dial(t, "viewer", newKey(t))
	before := scoresJSON[wire.ScoreEntry](t, viewer, "scores --json --bots")
	if len(before) != 2 || before[0].Name != "bob" || before[0].Score != ended.Score {
		t.Fatalf("bot board before: %+v", before)
	}
	id := before[0].GameID
	gameLink := fmt.Sprintf("/game/%d", id)
	if !strings.Contains(md.page(t, "/scores/4/bot"), gameLink) {
		t.Fatalf("the web board lacks game %d", id)
	}
	// Carl's game was played a moment ago: in play.
	md.adminRun(t, fmt.Sprintf("hide %d --reason x", before[1].GameID), wire.ExitInPlay)
	md.adminRun(t, fmt.Sprintf(`hide %d --reason "played by a script"`, id), wire.ExitOK)
	after := scoresJSON[wire.ScoreEntry](t, viewer, "scores --json --bots")
	if len(after) != 1 || after[0].Name != "carl" || after[0].Rank != 1 {
		t.Fatalf("bot board after hiding bob's game: %+v", after)
	}
	if strings.Contains(md.page(t, "/scores/4/bot"), gameLink) {
		t.Fatalf("the web board still shows hidden game %d", id)
	}
	if r := run(t, viewer, fmt.Sprintf("verify %d", id), ""); r.code != 0 {
		t.Fatalf("a hidden game stays verifiable: %+v", r)
	}
	md.adminRun(t, fmt.Sprintf(`unhide %d --reason "a person after all"`, id), wire.ExitOK)
	if again := scoresJSON[wire.ScoreEntry](t, viewer, "scores --json --bots"); len(again) != 2 || again[0].GameID != id || again[0].Rank != 1 {
		t.Fatalf("bot board after unhide: %+v", again)
	}
	if d := md.adminRun(t, "player bob", wire.ExitOK).stdout; !strings.Contains(d, ": hide game") || !strings.Contains(d, ": unhide game") {
		t.Fatalf("player bob:\n%s", d)
	}
	// A hidden player plays on, off the boards and off TV's list.
	md.adminRun(t, `hide bob --reason "a script"`, wire.ExitOK)
	bob2 := startBot(t, md.dial(t, "bob", bobKey), "")
	playSome(t, bob2, bob2.mustRead(), 4)
	var live []string
	for _, snap := range md.games.Live(0) {
		live = append(live, snap.Player)
	}
	if len(live) != 1 || live[0] != "carl" {
		t.Fatalf("live games with bob hidden: %q; want carl's only", live)
	}
	if rows := scoresJSON[wire.ScoreEntry](t, viewer, "scores --json --bots"); len(rows) != 1 || rows[0].Name != "carl" {
		t.Fatalf("bot board with bob hidden: %+v", rows)
	}
}

// TestRenameOverSSH: rename changes the name on the boards and the web,
// and holds against the player's own name until its lock ends.
func TestRenameOverSSH(t *testing.T) {
	md := startModerated(t)
	key := newKey(t)
	b := startBot(t, md.dial(t, "imposter", key), "")
	playSome(t, b, b.mustRead(), 4)
	md.adminRun(t, `rename imposter Someone --reason "impersonation"`, wire.ExitOK)
	// Reconnecting with the old name keeps the new one.
	c := md.dial(t, "imposter", key)
	if rows := scoresJSON[wire.ScoreEntry](t, c, "scores --json --bots"); len(rows) != 1 || rows[0].Name != "Someone" {
		t.Fatalf("board after the rename: %+v", rows)
	}
	if page := md.page(t, "/scores/4/bot"); !strings.Contains(page, "Someone") || strings.Contains(page, "imposter") {
		t.Fatal("the web board does not show the new name only")
	}
	if r := md.adminRun(t, "players --search some", wire.ExitOK); !strings.Contains(r.stdout, "Someone") || !strings.Contains(r.stdout, "name locked until") {
		t.Fatalf("players: %q", r.stdout)
	}
}

// TestAdminBadInput: every mistake is one line on stderr, its status, and
// nothing stored.
func TestAdminBadInput(t *testing.T) {
	md := startModerated(t)
	run(t, md.dial(t, "eve", newKey(t)), "scores", "")
	admins, err := md.store.Admins(t.Context())
	if err != nil || len(admins) != 1 {
		t.Fatal(admins, err)
	}
	self := admins[0].Fingerprint
	for _, c := range []struct {
		cmd  string
		code int
		says string
	}{
		{"ban eve", wire.ExitUsage, "--reason is required"},
		{"ban eve --reason " + strings.Repeat("x", store.MaxReason+1), wire.ExitUsage, "at most 500"},
		{"ban eve --for 3x --reason r", wire.ExitUsage, "not a duration"},
		{"ban eve --for 0s --reason r", wire.ExitUsage, "more than nothing"},
		{"ban 10.0.0.0/33 --reason r", wire.ExitUsage, "not a range"},
		{"ban 300.1.2.3 --reason r", wire.ExitUsage, "not an address"},
		{"ban 0.0.0.0/0 --reason r", wire.ExitUsage, "every address"},
		{"ban nobody --reason r", wire.ExitNotFound, "not found"},
		{"ban " + self + " --reason r", wire.ExitAdminRefused, "yourself"},
		{"ban #" + fmt.Sprint(admins[0].ID) + " --reason r", wire.ExitAdminRefused, "yourself"},
		{"ban 127.0.0.0/8 --reason r", wire.ExitAdminRefused, "your own address"},
		{"revoke sysop --reason r", wire.ExitAdminRefused, "admin keys file"},
		{"grant sysop --reason r", wire.ExitAdminRefused, "already"},
		{"hide 999999 --reason r", wire.ExitNotFound, "not found"},
		{"unban eve --reason r", wire.ExitNotFound, "not found"},
		{"rename eve --reason r", wire.ExitUsage, "want 2 argument"},
		{"audit --since yesterday", wire.ExitUsage, "--since"},
		{"frob", wire.ExitUsage, "unknown command"},
	} {
		r := md.adminRun(t, c.cmd, c.code)
		if r.stdout != "" || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, c.says) {
			t.Errorf("admin %.60s: stdout %q, stderr %q; want one line saying %q", c.cmd, r.stdout, r.stderr, c.says)
		}
	}
	if audit, err := md.store.Audit(t.Context(), time.Time{}, 100); err != nil || len(audit) != 0 {
		t.Fatalf("refused actions left audit rows: %+v, %v", audit, err)
	}
}

// TestBlockedNames: a name that holds a blocked word, however it is
// spelt, is replaced by the name of the player's key.
func TestBlockedNames(t *testing.T) {
	ts := startServer(t, func(c *server.Config) { c.Blocked = moderation.NewBlocklist("admin") })
	for _, user := range []string{"TheAdmin", "аdmin2", "plain"} {
		b := startBot(t, ts.dial(t, user, newKey(t)), "")
		playSome(t, b, b.mustRead(), 4)
	}
	var names []string
	for _, e := range scoresJSON[wire.ScoreEntry](t, ts.dial(t, "viewer", newKey(t)), "scores --json --bots") {
		names = append(names, e.Name)
	}
	if got := strings.Join(names, " "); strings.Contains(strings.ToLower(got), "dmin") || !strings.Contains(got, "plain") || strings.Count(got, "player-") != 2 {
		t.Fatalf("names on the board: %q", got)
	}
}

// TestTwoAdminsAtOnce: two admins ban one player at the same moment: one
// ban is stored, the other admin is told the player is banned already.
func TestTwoAdminsAtOnce(t *testing.T) {
	md := startModerated(t)
	second := newKey(t)
	run(t, md.dial(t, "ops", second), "scores", "")
	md.adminRun(t, `grant ops --reason "second admin"`, wire.ExitOK)
	run(t, md.dial(t, "eve", newKey(t)), "scores", "")
	admins := []*gossh.Client{md.admin, md.dial(t, "ops", second)}
	codes := make(chan int, len(admins))
	for _, c := range admins {
		s, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		go func() {
			var ee *gossh.ExitError
			switch err := s.Run(`admin ban eve --reason "at once"`); {
			case err == nil:
				codes <- 0
			case errors.As(err, &ee):
				codes <- ee.ExitStatus()
			default:
				codes <- -1
			}
		}()
	}
	got := map[int]int{}
	for range admins {
		got[<-codes]++
	}
	if got[wire.ExitOK] != 1 || got[wire.ExitAdminRefused] != 1 {
		t.Fatalf("statuses %v: want one %d and one %d", got, wire.ExitOK, wire.ExitAdminRefused)
	}
	if bans, err := md.store.Bans(t.Context(), time.Now()); err != nil || len(bans) != 1 {
		t.Fatalf("bans %+v, %v: want one", bans, err)
	}
}
