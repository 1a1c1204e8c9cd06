package server_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/race"
	"github.com/ssh2048/ssh2048/server/servertest"
	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/postgres"
	"github.com/ssh2048/ssh2048/wire"
	gossh "golang.org/x/crypto/ssh"
)

// accountServer is a server for the account tests, and its store.
type accountServer struct {
	*testServer
	st servertest.Backing
}

// forEachStore runs test against a server over SQLite and one over a
// real PostgreSQL (pgtest): accounts are kept by both stores alike.
func forEachStore(t *testing.T, test func(t *testing.T, ts accountServer)) {
	forEachStoreWith(t, func(*testing.T) []serverOption { return nil }, test)
}

// forEachStoreWith is forEachStore with the server options that opts
// makes for each store's test.
func forEachStoreWith(t *testing.T, opts func(t *testing.T) []serverOption, test func(t *testing.T, ts accountServer)) {
	t.Run("sqlite", func(t *testing.T) {
		s := startServer(t, opts(t)...)
		test(t, accountServer{s, s.store})
	})
	t.Run("postgres", func(t *testing.T) {
		url := pgDatabase(t)
		var st servertest.Backing
		s := servertest.StartOver(t, t.TempDir(), "127.0.0.1:0", func(log *slog.Logger) (servertest.Backing, error) {
			p, err := postgres.Open(context.Background(), url, postgres.WithLogger(log))
			st = p
			return p, err
		}, append([]serverOption{noBotRate}, opts(t)...)...)
		test(t, accountServer{&testServer{srv: s.Srv, addr: s.Addr, dir: s.Dir, logs: s.Logs}, st})
	})
}

// scoreRows is `scores --bots --json` as the client with key sees it.
func scoreRows(t *testing.T, ts accountServer, key gossh.Signer) []wire.ScoreEntry {
	t.Helper()
	r := run(t, ts.dial(t, "viewer", key), "scores --bots --json", "")
	var rows []wire.ScoreEntry
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		t.Fatalf("scores --bots --json: %v %q", err, r.stdout)
	}
	return rows
}

// playBotMove plays one move of a bot game as user with key; args are
// bot's flags.
func playBotMove(t *testing.T, ts accountServer, user string, key gossh.Signer, args ...string) {
	t.Helper()
	b := startBot(t, ts.dial(t, user, key), strings.Join(args, " "))
	b.mustRead()
	for moved := false; !moved; {
		for _, d := range []string{"left", "up", "right", "down"} {
			b.send(d)
			if b.mustRead().Moved {
				moved = true
				break
			}
		}
	}
	b.finish()
}

// linkCodeOf runs `link` as key's account and returns the code it prints.
func linkCodeOf(t *testing.T, ts accountServer, key gossh.Signer) string {
	t.Helper()
	r := run(t, ts.dial(t, "x", key), "link", "")
	_, after, ok := strings.Cut(r.stdout, "Your link code: ")
	if r.code != 0 || !ok {
		t.Fatalf("link: %d %q %q", r.code, r.stdout, r.stderr)
	}
	return strings.Fields(after)[0]
}

// whoami is `whoami`'s lines by their first word.
func whoami(t *testing.T, ts accountServer, user string, key gossh.Signer) map[string]string {
	t.Helper()
	r := run(t, ts.dial(t, user, key), "whoami", "")
	if r.code != 0 {
		t.Fatalf("whoami: %d %q", r.code, r.stderr)
	}
	out := map[string]string{}
	for line := range strings.Lines(r.stdout) {
		k, v, _ := strings.Cut(strings.TrimSpace(line), " ")
		out[k] = strings.TrimSpace(v)
	}
	return out
}

// TestLinkedKeysAreOnePlayer: a code from one key links another; from
// then on both keys are one player in `scores --json`, whichever asks,
// and whoami says so. Wrong, reused and own codes are refused.
func TestLinkedKeysAreOnePlayer(t *testing.T) {
	forEachStore(t, func(t *testing.T, ts accountServer) {
		desk, laptop := newKey(t), newKey(t)
		playBotMove(t, ts, "ann", desk)
		code := linkCodeOf(t, ts, desk)
		if r := run(t, ts.dial(t, "ann", desk), "link "+code, ""); r.code != wire.ExitRefused || !strings.Contains(r.stderr, "on that account already") {
			t.Fatalf("the code from its own account's key: %d %q", r.code, r.stderr)
		}
		if r := run(t, ts.dial(t, "annie", laptop), "link ZZZZZ-ZZZZZ", ""); r.code != wire.ExitRefused || !strings.Contains(r.stderr, "no such code") {
			t.Fatalf("a wrong code: %d %q", r.code, r.stderr)
		}
		if r := run(t, ts.dial(t, "annie", laptop), "link "+strings.ToLower(code), ""); r.code != 0 || !strings.Contains(r.stdout, "ann's account") {
			t.Fatalf("link CODE from the laptop: %d %q %q", r.code, r.stdout, r.stderr)
		}
		if r := run(t, ts.dial(t, "annie", laptop), "link "+code, ""); r.code != wire.ExitRefused || !strings.Contains(r.stderr, "used already") {
			t.Fatalf("the code again: %d %q", r.code, r.stderr)
		}
		playBotMove(t, ts, "annie", laptop)
		want := store.ShortID(gossh.FingerprintSHA256(desk.PublicKey()))
		for _, key := range []gossh.Signer{desk, laptop} {
			rows := scoreRows(t, ts, key)
			if len(rows) != 1 || rows[0].Player != want || rows[0].Name != "ann" {
				t.Fatalf("scores --json: %+v; want one row, ann, player %s", rows, want)
			}
		}
		w := whoami(t, ts, "someone", laptop)
		if w["name"] != "ann" || w["account"] != want || w["keys"] != "2" || w["key"] != gossh.FingerprintSHA256(laptop.PublicKey()) {
			t.Fatalf("whoami from the laptop: %v", w)
		}
		// Keys: the list, the session's own key only with --self, never
		// the last.
		r := run(t, ts.dial(t, "ann", desk), "keys", "")
		if r.code != 0 || strings.Count(r.stdout, "SHA256:") != 2 || !strings.Contains(r.stdout, "(this key)") {
			t.Fatalf("keys: %d %q", r.code, r.stdout)
		}
		deskFP, laptopFP := gossh.FingerprintSHA256(desk.PublicKey()), gossh.FingerprintSHA256(laptop.PublicKey())
		if r := run(t, ts.dial(t, "ann", desk), "keys remove "+deskFP, ""); r.code != wire.ExitRefused || !strings.Contains(r.stderr, "--self") {
			t.Fatalf("removing the session's own key: %d %q", r.code, r.stderr)
		}
		if r := run(t, ts.dial(t, "ann", desk), "keys remove 'SHA256:evil\x1b[2J'", ""); r.code != wire.ExitNotFound || strings.ContainsRune(r.stderr, 0x1b) {
			t.Fatalf("removing a key not the account's: %d %q", r.code, r.stderr)
		}
		if r := run(t, ts.dial(t, "ann", desk), "keys remove "+laptopFP, ""); r.code != 0 {
			t.Fatalf("removing the laptop: %d %q", r.code, r.stderr)
		}
		if r := run(t, ts.dial(t, "ann", desk), "keys remove --self "+deskFP, ""); r.code != wire.ExitRefused || !strings.Contains(r.stderr, "last key") {
			t.Fatalf("removing the last key: %d %q", r.code, r.stderr)
		}
	})
}

// TestMergeKeepsBothHistories: a key with games of its own is asked to
// merge, and with --merge every game of both is the account's.
func TestMergeKeepsBothHistories(t *testing.T) {
	forEachStore(t, func(t *testing.T, ts accountServer) {
		desk, laptop := newKey(t), newKey(t)
		playBotMove(t, ts, "ann", desk)
		playBotMove(t, ts, "lap", laptop)
		playBotMove(t, ts, "lap", laptop, "--size", "5")
		ctx := context.Background()
		before := map[int64]bool{}
		var ids [2]int64
		for i, key := range []gossh.Signer{desk, laptop} {
			p, err := ts.st.UpsertPlayer(ctx, gossh.FingerprintSHA256(key.PublicKey()), "ssh-ed25519", "x")
			if err != nil {
				t.Fatal(err)
			}
			ids[i] = p.ID
			games, err := ts.st.PlayerGames(ctx, p.ID, 100)
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range games {
				before[g.ID] = true
			}
		}
		if len(before) != 3 {
			t.Fatalf("games before: %v", before)
		}
		code := linkCodeOf(t, ts, desk)
		if r := run(t, ts.dial(t, "lap", laptop), "link "+code, ""); r.code != wire.ExitMerge || !strings.Contains(r.stderr, "--merge") {
			t.Fatalf("link CODE from a key with games: %d %q", r.code, r.stderr)
		}
		if r := run(t, ts.dial(t, "lap", laptop), "link "+code+" --merge", ""); r.code != 0 || !strings.Contains(r.stdout, "games") {
			t.Fatalf("link CODE --merge: %d %q %q", r.code, r.stdout, r.stderr)
		}
		games, err := ts.st.PlayerGames(ctx, ids[0], 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range games {
			delete(before, g.ID)
		}
		if len(before) != 0 {
			t.Fatalf("games not on the merged account: %v (it has %+v)", before, games)
		}
		if rows := scoreRows(t, ts, laptop); len(rows) != 1 || rows[0].Name != "ann" {
			t.Fatalf("scores after the merge: %+v", rows)
		}
	})
}

// TestClaimedNameIsKept: a claimed name stays whatever user name the
// account connects with, and no other account can claim it or a
// look-alike of it; bad names are refused with status 2.
func TestClaimedNameIsKept(t *testing.T) {
	forEachStore(t, func(t *testing.T, ts accountServer) {
		zed, other := newKey(t), newKey(t)
		if r := run(t, ts.dial(t, "root", zed), "name", ""); r.code != 0 || !strings.HasPrefix(r.stdout, store.GeneratedPrefix) {
			t.Fatalf("the name of a new account from root: %d %q", r.code, r.stdout)
		}
		if r := run(t, ts.dial(t, "root", zed), "name Zed Lee", ""); r.code != 0 || !strings.Contains(r.stdout, "Zed Lee") {
			t.Fatalf("name Zed Lee: %d %q %q", r.code, r.stdout, r.stderr)
		}
		if w := whoami(t, ts, "mallory", zed); w["name"] != "Zed Lee" {
			t.Fatalf("whoami as another user name: %v", w)
		}
		for _, tt := range []struct {
			name string
			code int
		}{
			{"'zed lee'", wire.ExitRefused},
			{"'\u0396ed Lee'", wire.ExitRefused}, // a Greek capital zeta
			{"root", wire.ExitUsage},
			{"player-1234", wire.ExitUsage},
			{"'bad\u200bname'", wire.ExitUsage},
			{"'" + strings.Repeat("x", 17) + "'", wire.ExitUsage},
		} {
			if r := run(t, ts.dial(t, "other", other), "name "+tt.name, ""); r.code != tt.code || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("name %s from another account: %d %q, want %d and one line", tt.name, r.code, r.stderr, tt.code)
			}
		}
		if r := run(t, ts.dial(t, "root", zed), "name Zedd", ""); r.code != wire.ExitRefused || !strings.Contains(r.stderr, "once a day") {
			t.Fatalf("a second rename at once: %d %q", r.code, r.stderr)
		}
	})
}

// TestConcurrentNameClaims: 16 accounts claiming one name at once over
// SSH: one gets it, the others are refused.
func TestConcurrentNameClaims(t *testing.T) {
	forEachStore(t, func(t *testing.T, ts accountServer) {
		const n = 16
		clients := make([]*gossh.Client, n)
		for i := range clients {
			clients[i] = ts.dial(t, "claimer", newKey(t))
		}
		codes := make([]int, n)
		var wg sync.WaitGroup
		for i := range clients {
			wg.Go(func() { codes[i] = servertest.Run(t, clients[i], "name Quinn", "").Code })
		}
		wg.Wait()
		granted := 0
		for i, c := range codes {
			switch c {
			case 0:
				granted++
			case wire.ExitRefused:
			default:
				t.Errorf("claim %d: status %d", i, c)
			}
		}
		if granted != 1 {
			t.Fatalf("%d of %d claims granted, want 1", granted, n)
		}
	})
}

// mergeRaceLine is a racing bot's state line.
type mergeRaceLine struct {
	state
	Race *wire.Race `json:"race"`
}

func readMergeRace(t *testing.T, b *botSession) mergeRaceLine {
	t.Helper()
	line, err := b.out.ReadBytes('\n')
	if err != nil {
		t.Fatalf("race line: %v; stderr %s", err, b.stderr.String())
	}
	var st mergeRaceLine
	if err := jsonUnmarshal(line, &st); err != nil || st.Race == nil {
		t.Fatalf("race line %s: %v", line, err)
	}
	return st
}

// TestMergeDuringARace: a racer's key merges into another account (link
// CODE --merge from a second session) while the race runs, which ends
// the racer's session (status 3, the line of session.Moved) and so its
// race. When the race ends its result is stored for every racer: the
// other racer (beta) gets its row on the board of races with bots. The
// race recorded the merged racer under its deleted account's id, the
// foreign key of race_entries refused it, and the whole race was lost,
// for every racer.
func TestMergeDuringARace(t *testing.T) {
	ts := startRaces(t, race.WithTimes(200*time.Millisecond, 200*time.Millisecond, 8*time.Second))
	home, alphaKey, betaKey := newKey(t), newKey(t), newKey(t)
	// home's account, which alpha's key will join.
	run(t, ts.dial(t, "home", home), "whoami", "")
	a := startBot(t, ts.dial(t, "alpha", alphaKey), "--race --size 3")
	b := startBot(t, ts.dial(t, "beta", betaKey), "--race --size 3")
	readMergeRace(t, a)
	readMergeRace(t, b)
	for _, m := range []string{"left", "up"} {
		a.send(m)
		readMergeRace(t, a)
		b.send(m)
		readMergeRace(t, b)
	}
	r := run(t, ts.dial(t, "x", home), "link", "")
	_, after, _ := strings.Cut(r.stdout, "Your link code: ")
	code := strings.Fields(after)[0]
	if r := run(t, ts.dial(t, "alpha", alphaKey), "link "+code+" --merge", ""); r.code != 0 {
		t.Fatalf("link --merge during the race: %d %q %q", r.code, r.stdout, r.stderr)
	}
	if code := a.wait(); code != wire.ExitTakenOver || strings.TrimSpace(a.stderr.String()) != "ssh2048: "+session.MovedText {
		t.Errorf("the merged racer's bot: status %d, stderr %q; want %d and the line of a key that joined another account",
			code, a.stderr.String(), wire.ExitTakenOver)
	}
	// The other racer leaves too: the race ends and is recorded.
	b.in.Close()
	b.wait()
	var rows []wire.BotRaceEntry
	viewer := ts.dial(t, "carl", newKey(t))
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		rows = scoresJSON[wire.BotRaceEntry](t, viewer, "scores --races --bots --json")
		if len(rows) > 0 {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	beta := false
	for _, row := range rows {
		beta = beta || row.Name == "beta"
	}
	if !beta {
		t.Fatalf("after a racer's merge the race was not recorded: board of races with bots %+v; log:\n%s",
			rows, grepLines(ts.logs.String(), "record race"))
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestMergeEndsASessionsGame: a bot of the joining key plays a 4×4 game
// while its key is merged into an account with a 4×4 game in progress,
// which ends the bot's game (accounts.md), on a node that did not hear
// of the merge (startDeafServer), which would have ended the session. Its
// next move is refused, and it is told why, status 3: it used to be
// told that a newer session had taken over, which did not exist.
func TestMergeEndsASessionsGame(t *testing.T) {
	ts := startDeafServer(t)
	as := accountServer{ts, ts.store}
	home, alphaKey := newKey(t), newKey(t)
	playBotMove(t, as, "home", home) // home has a 4×4 bot game in progress
	a := startBot(t, ts.dial(t, "alpha", alphaKey), "--size 4")
	a.mustRead()
	for _, d := range []string{"left", "up", "right", "down"} {
		a.send(d)
		a.mustRead()
	}
	code := linkCodeOf(t, as, home)
	if r := run(t, ts.dial(t, "alpha", alphaKey), "link "+code+" --merge", ""); r.code != 0 {
		t.Fatalf("merge: %d %q", r.code, r.stderr)
	}
	a.send("left")
	_, ok := a.read()
	if exit := a.wait(); ok || exit != wire.ExitTakenOver || !strings.Contains(a.stderr.String(), "joined another account") {
		t.Fatalf("the bot's move after the merge ended its game: line %v, exit %d, stderr %q; want no line, status %d and why",
			ok, exit, a.stderr.String(), wire.ExitTakenOver)
	}
}

// TestLinkCountsOneGameInTheSingular: what link says of a key's games
// reads right for one game as for several, asking and merging.
func TestLinkCountsOneGameInTheSingular(t *testing.T) {
	forEachStore(t, func(t *testing.T, ts accountServer) {
		desk, laptop := newKey(t), newKey(t)
		playBotMove(t, ts, "ann", desk)
		playBotMove(t, ts, "lap", laptop)
		code := linkCodeOf(t, ts, desk)
		r := run(t, ts.dial(t, "lap", laptop), "link "+code, "")
		if want := "link: this key has 1 game of its own;"; r.code != wire.ExitMerge || !strings.HasPrefix(r.stderr, want) {
			t.Fatalf("link CODE from a key with one game: %d %q, want it to begin %q", r.code, r.stderr, want)
		}
		r = run(t, ts.dial(t, "lap", laptop), "link "+code+" --merge", "")
		if want := " Its game is that account's now.\n"; r.code != 0 || !strings.HasSuffix(r.stdout, want) {
			t.Fatalf("link CODE --merge: %d %q, want it to end %q", r.code, r.stdout, want)
		}
	})
}
