package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	gossh "golang.org/x/crypto/ssh"

	"github.com/ssh2048/ssh2048/record"
	"github.com/ssh2048/ssh2048/review"
	"github.com/ssh2048/ssh2048/wire"
)

// browserPath finds Debian's Chromium. Without it the browser test skips,
// saying what to install; under CI (CI=true) it fails instead: CI
// installs it, so its absence is a broken CI, not a choice.
func browserPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no Chromium on PATH under CI: .ci/run installs it (apt-get install chromium)")
	}
	t.Skip("no Chromium on PATH; install it to run the browser test (apt-get install chromium)")
	return ""
}

// browser is a headless Chromium driven through the DevTools protocol,
// with what the pages did that they must not: dialogs opened (alert()),
// exceptions thrown, console errors (a Content-Security-Policy violation
// is one).
type browser struct {
	ctx context.Context

	mu        sync.Mutex
	incidents []string
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	exe := browserPath(t)
	// The flags headless Chromium needs on this machine: no sandbox (we
	// run as root), no GPU, and none of its background traffic to
	// Google's hosts, which the closed network refuses.
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1100, 900),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	b := &browser{}
	ctx, cancel := chromedp.NewContext(alloc, chromedp.WithListener(b.listen))
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("start Chromium: %v", err)
	}
	b.ctx = ctx
	return b
}

func (b *browser) listen(ev any) {
	var what string
	switch ev := ev.(type) {
	case *page.EventJavascriptDialogOpening:
		what = fmt.Sprintf("a %s dialog opened: %q", ev.Type, ev.Message)
	case *runtime.EventExceptionThrown:
		what = "exception: " + ev.ExceptionDetails.Text
		if ev.ExceptionDetails.Exception != nil {
			what += " " + ev.ExceptionDetails.Exception.Description
		}
	case *log.EventEntryAdded:
		if ev.Entry.Level == log.EntryLevelError {
			what = fmt.Sprintf("console error (%s): %s %s", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL)
		}
	}
	if what != "" {
		b.mu.Lock()
		b.incidents = append(b.incidents, what)
		b.mu.Unlock()
	}
}

// open loads url and returns the page's text.
func (b *browser) open(t *testing.T, url string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
	return eval[string](t, b, `document.body.innerText`)
}

func eval[T any](t *testing.T, b *browser, js string, opts ...chromedp.EvaluateOption) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, opts...))
	if err != nil {
		t.Fatalf("evaluate %.200s: %v", js, err)
	}
	return v
}

// axeMissing says how to get axe-core, which checks the pages'
// accessibility.
const axeMissing = "no axe-core: the accessibility checks need SSH2048_AXE set to its axe.min.js " +
	"(npm install --prefix DIR axe-core; SSH2048_AXE=DIR/node_modules/axe-core/axe.min.js)"

// axeScript reads axe-core's axe.min.js from $SSH2048_AXE. Without it
// the accessibility checks skip, saying what to install; under CI
// (CI=true) the test fails instead: .ci/run installs it.
func axeScript(t *testing.T) string {
	t.Helper()
	path := os.Getenv("SSH2048_AXE")
	var why string
	if path != "" {
		b, err := os.ReadFile(path)
		if err == nil {
			return string(b)
		}
		why = fmt.Sprintf("SSH2048_AXE: %v; ", err)
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%sunder CI the accessibility checks must run: %s (.ci/run installs it)", why, axeMissing)
	}
	if why != "" {
		t.Log(why)
	}
	return ""
}

// axeViolation is one rule a page breaks, as axe.run reports it.
type axeViolation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"` // the elements' HTML, with axe's summary of what is wrong
}

// accessible runs axe-core on the page open in b, as a subtest named
// after it: every violation of impact serious or critical fails it.
func (b *browser) accessible(t *testing.T, axe, name string) {
	t.Helper()
	t.Run("axe "+name, func(t *testing.T) {
		if axe == "" {
			t.Skip(axeMissing)
		}
		eval[bool](t, b, axe+"\n;true")
		found := eval[[]axeViolation](t, b, `axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations.map(v => ({
			id: v.id, impact: v.impact, help: v.help,
			nodes: v.nodes.map(n => n.html + " — " + (n.failureSummary || "").replace(/\s+/g, " "))})))`, chromedp.EvalAwaitPromise)
		for _, v := range found {
			if v.Impact != "serious" && v.Impact != "critical" {
				continue
			}
			t.Errorf("%s: %s (%s, %d elements), e.g. %s", name, v.ID, v.Impact, len(v.Nodes), v.Help)
			for _, n := range v.Nodes[:min(len(v.Nodes), 3)] {
				t.Logf("  %s", n)
			}
		}
	})
}

// fitsWidth checks that the page open in b is no wider than its window
// and that every replay link on it lies inside the window.
func (b *browser) fitsWidth(t *testing.T, name string) {
	t.Helper()
	var fit struct {
		Width, Scroll, Links int
		Outside              []string
	}
	raw := eval[[]byte](t, b, `(() => {
		const width = document.documentElement.clientWidth;
		const links = Array.from(document.querySelectorAll('a[href^="/game/"]'));
		const outside = links.filter(a => { const r = a.getBoundingClientRect(); return r.width === 0 || r.left < 0 || r.right > width; });
		return {Width: width, Scroll: document.documentElement.scrollWidth, Links: links.length, Outside: outside.map(a => a.getAttribute("href"))};
	})()`)
	if err := json.Unmarshal(raw, &fit); err != nil {
		t.Fatal(err)
	}
	if fit.Scroll > fit.Width {
		t.Errorf("%s at %d px: the page is %d px wide", name, fit.Width, fit.Scroll)
	}
	if len(fit.Outside) > 0 {
		t.Errorf("%s at %d px: %d of %d replay links are out of sight: %v", name, fit.Width, len(fit.Outside), fit.Links, fit.Outside)
	}
}

// screenshot saves the page as dir/name.png when dir is set
// ($SSH2048_SCREENSHOTS), for people to look at.
func (b *browser) screenshot(t *testing.T, dir, name string) {
	t.Helper()
	if dir == "" {
		return
	}
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

func (b *browser) checkIncidents(t *testing.T) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, i := range b.incidents {
		t.Errorf("the pages did what they must not: %s", i)
	}
}

// TestBrowser drives headless Chromium against the real server with the
// data of real games played over SSH: the leaderboard shows the players,
// a replay played to its end shows the board `export` gives (and `verify`
// confirms), and pages full of hostile names show them as text and run no
// script (no dialog, no exception, no console error, no element made from
// a name). axe-core finds no serious or critical accessibility fault on
// any page; at a phone's width no page is wider than the screen and every
// replay link is in sight; /live follows the games without a reload; the
// footer names the server's SSH port.
func TestBrowser(t *testing.T) {
	b := newBrowser(t)
	axe := axeScript(t)
	bin := buildBinary(t)
	srv := startProcess(t, bin, t.TempDir(), "SSH2048_HTTP=127.0.0.1:0", "SSH2048_CONN_RATE_PER_IP=0", "SSH2048_BOT_RATE=0")
	base := "http://" + srv.httpAddr
	shots := os.Getenv("SSH2048_SCREENSHOTS")

	// Real games over SSH: two played to their end on 3×3, one in play.
	rev := playReviewedGame(t, srv.addr, "ann")
	playBotGame(t, srv.addr, "<script>alert(1)", 3, 0)
	playBotGame(t, srv.addr, "<svg/onload=a()>", 4, 25) // stays connected: in play
	var rows []wire.ScoreEntry
	if err := json.Unmarshal([]byte(sshRun(t, srv.addr, "ann", "scores --bots --size 3 --json")), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("scores: %+v", rows)
	}
	var ann wire.ScoreEntry
	for _, r := range rows {
		if r.Name == "ann" {
			ann = r
		}
	}

	// The leaderboard shows the players, hostile names as text.
	text := b.open(t, base+"/scores/3/bot")
	for _, name := range []string{"ann", "<script>alert(1)"} {
		if !strings.Contains(text, name) {
			t.Errorf("the 3×3 bot leaderboard does not show %q:\n%s", name, text)
		}
	}
	_, sshPort, _ := net.SplitHostPort(srv.addr)
	if want := "ssh -p " + sshPort + " 127.0.0.1"; !strings.Contains(text, want) {
		t.Errorf("the footer does not say %q:\n%s", want, text)
	}
	b.screenshot(t, shots, "web-leaderboard")
	b.accessible(t, axe, "leaderboard")
	if n := eval[int](t, b, `document.querySelectorAll("script, svg, img, iframe, object").length`); n != 0 {
		t.Errorf("the leaderboard has %d script, svg, img, iframe or object elements; the names made elements", n)
	}
	text = b.open(t, base+"/live")
	if !strings.Contains(text, "<svg/onload=a()>") {
		t.Errorf("the games in play do not show the player in play:\n%s", text)
	}
	if n := eval[int](t, b, `document.querySelectorAll("svg, script:not([src])").length`); n != 0 {
		t.Errorf("/live has %d svg or inline script elements", n)
	}
	b.screenshot(t, shots, "web-live")
	b.accessible(t, axe, "live")
	// A game that starts while the page is open shows on it by itself.
	eval[bool](t, b, `window.loaded = true`)
	playBotGame(t, srv.addr, "cy", 5, 5)
	pollCtx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	if _, err := chromedp.Run(pollCtx, chromedp.Poll[bool](
		`window.loaded === true && document.body.innerText.includes("cy")`)); err != nil {
		t.Errorf("/live did not show a game started after it was opened without a reload: %v (loaded %v):\n%s", err,
			eval[bool](t, b, `window.loaded === true`), eval[string](t, b, `document.body.innerText`))
		b.screenshot(t, shots, "web-live-stale")
	}
	b.open(t, base+"/")
	b.screenshot(t, shots, "web-home")
	b.accessible(t, axe, "home")
	b.open(t, base+"/races")
	b.accessible(t, axe, "races")
	b.open(t, base+"/daily/3")
	b.accessible(t, axe, "daily")
	b.open(t, base+"/api/")
	b.accessible(t, axe, "api")

	// A replay played to its end shows the record's final board.
	rec, err := record.Parse(strings.NewReader(sshRun(t, srv.addr, "ann", fmt.Sprintf("export %d", ann.GameID))))
	if err != nil {
		t.Fatal(err)
	}
	sshRun(t, srv.addr, "ann", fmt.Sprintf("verify %d", ann.GameID)) // exit 0: confirmed
	// The AI's review, made over SSH and stored (playReviewedGame), is
	// drawn under the replay.
	b.open(t, fmt.Sprintf("%s/game/%d?autoplay=1", base, ann.GameID))
	if _, err := chromedp.Run(pollCtx, chromedp.Poll[bool](fmt.Sprintf(
		`document.getElementById("replay").dataset.move === "%d"`, len(rec.Moves)))); err != nil {
		t.Fatalf("the replay did not play to move %d: %v (at %s)", len(rec.Moves), err,
			eval[string](t, b, `String(document.getElementById("replay").dataset.move)`))
	}
	cells := eval[[]string](t, b, `Array.from(document.querySelectorAll("#replay .cell")).map(c => c.textContent)`)
	var want []string
	for _, row := range boardValues(rec) {
		for _, v := range row {
			want = append(want, map[bool]string{true: "", false: fmt.Sprint(v)}[v == 0])
		}
	}
	if strings.Join(cells, ",") != strings.Join(want, ",") {
		t.Errorf("the replay ends on %v; export's board is %v", cells, want)
	}
	if score := eval[string](t, b, `document.getElementById("score").textContent`); score != fmt.Sprint(rec.Score) {
		t.Errorf("the replay ends on score %s; export says %d", score, rec.Score)
	}
	b.screenshot(t, shots, "web-replay-end")
	b.accessible(t, axe, "replay")
	// Seek back to the middle with the slider, as a person would.
	eval[bool](t, b, fmt.Sprintf(`(() => { const s = document.getElementById("seek"); s.value = "%d"; s.dispatchEvent(new Event("input")); return true })()`, len(rec.Moves)/2))
	if at := eval[string](t, b, `document.getElementById("move").textContent`); at != fmt.Sprint(len(rec.Moves)/2) {
		t.Errorf("after seeking to move %d the page shows move %s", len(rec.Moves)/2, at)
	}
	b.screenshot(t, shots, "web-replay-middle")
	checkReviewChart(t, b, rev)
	b.screenshot(t, shots, "web-replay-review")

	player := fmt.Sprintf("%s/player/%d", base, playerIDOf(t, base, ann.GameID))
	b.open(t, player)
	b.screenshot(t, shots, "web-player")
	b.accessible(t, axe, "player")

	// On a phone.
	if _, err := chromedp.Run(b.ctx, chromedp.EmulateViewport(390, 844)); err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct{ name, url string }{
		{"home", base + "/"}, {"leaderboard", base + "/scores/3/bot"}, {"live", base + "/live"}, {"races", base + "/races"},
		{"daily", base + "/daily/3"}, {"player", player}, {"replay", fmt.Sprintf("%s/game/%d", base, ann.GameID)}, {"api", base + "/api/"},
	} {
		b.open(t, p.url)
		b.fitsWidth(t, p.name)
		b.screenshot(t, shots, "phone-"+p.name)
	}
	b.checkIncidents(t)
}

// checkReviewChart: the replay page draws the review's evaluation as an
// inline SVG with a mark per mistake, lists the mistakes, and a mistake's
// link seeks the replay to its move.
func checkReviewChart(t *testing.T, b *browser, rev *review.Review) {
	t.Helper()
	var mistakes []review.Move
	for _, m := range rev.Moves {
		if m.Class >= review.Mistake {
			mistakes = append(mistakes, m)
		}
	}
	if len(mistakes) == 0 {
		t.Fatal("the reviewed game has no mistake to link")
	}
	if n := eval[int](t, b, `document.querySelectorAll("svg.evaluation polyline").length`); n != 1 {
		t.Errorf("the replay page has %d evaluation charts", n)
	}
	if n := eval[int](t, b, `document.querySelectorAll("svg.evaluation circle").length`); n != len(mistakes) {
		t.Errorf("the chart marks %d moves; the review has %d mistakes and blunders", n, len(mistakes))
	}
	if n := eval[int](t, b, `document.querySelectorAll("ol.mistakes li a").length`); n != len(mistakes) {
		t.Errorf("the page lists %d mistakes; the review has %d", n, len(mistakes))
	}
	want := mistakes[len(mistakes)/2]
	eval[bool](t, b, fmt.Sprintf(`(() => { document.querySelector('ol.mistakes a[href="#move-%d"]').click(); return true })()`, want.Number))
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(
		`document.getElementById("replay").dataset.move === "%d"`, want.Number))); err != nil {
		t.Errorf("the link of move %d did not seek the replay there: %v (at %s)", want.Number, err,
			eval[string](t, b, `String(document.getElementById("replay").dataset.move)`))
	}
}

// playReviewedGame plays user's bot games on 3×3 to their end until the
// best of them has a review, made over SSH, with a mistake for the replay
// page to link, and returns that review. Keys in a fixed order make
// mistakes, but the tiles are random and the search is bounded in time:
// a game can come out with none.
func playReviewedGame(t *testing.T, addr, user string) *review.Review {
	t.Helper()
	reviewed := map[int64]bool{}
	for range 10 {
		playBotGame(t, addr, user, 3, 0)
		var rows []wire.ScoreEntry
		if err := json.Unmarshal([]byte(sshRun(t, addr, user, "scores --bots --size 3 --json")), &rows); err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(rows, func(r wire.ScoreEntry) bool { return r.Name == user })
		if i < 0 {
			t.Fatalf("%s is not on the board: %+v", user, rows)
		}
		if id := rows[i].GameID; !reviewed[id] {
			reviewed[id] = true
			rev, err := review.Parse([]byte(sshRun(t, addr, user, fmt.Sprintf("review --json %d", id))))
			if err != nil {
				t.Fatal(err)
			}
			if slices.ContainsFunc(rev.Moves, func(m review.Move) bool { return m.Class >= review.Mistake }) {
				return rev
			}
		}
	}
	t.Fatalf("no game of %s in 10 had a mistake in its review", user)
	return nil
}

// boardValues is a record's final board as rows of values.
func boardValues(r record.Record) [][]int {
	n := r.Board.Size()
	out := make([][]int, n)
	for i := range n {
		out[i] = make([]int, n)
		for j := range n {
			out[i][j] = r.Board.Value(i, j)
		}
	}
	return out
}

// playerIDOf reads the player of a game from the replay's JSON.
func playerIDOf(t *testing.T, base string, gameID int64) int64 {
	t.Helper()
	var g struct {
		PlayerID int64 `json:"player_id"`
	}
	if err := json.Unmarshal([]byte(httpGet(t, fmt.Sprintf("%s/api/game/%d", base, gameID)).body), &g); err != nil {
		t.Fatal(err)
	}
	return g.PlayerID
}

// keys of the players of TestBrowser, one per name.
var (
	keysMu sync.Mutex
	keys   = map[string]gossh.Signer{}
)

func keyOf(t *testing.T, name string) gossh.Signer {
	keysMu.Lock()
	defer keysMu.Unlock()
	if keys[name] == nil {
		keys[name] = clientKey(t)
	}
	return keys[name]
}

func sshDial(t *testing.T, addr, user string) *gossh.Client {
	t.Helper()
	c, err := gossh.Dial("tcp", addr, &gossh.ClientConfig{
		User: user, Auth: []gossh.AuthMethod{gossh.PublicKeys(keyOf(t, user))}, Timeout: 10 * time.Second,
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), // a test server on loopback
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// sshRun runs a command as user and returns its output; it must exit 0.
func sshRun(t *testing.T, addr, user, cmd string) string {
	t.Helper()
	s, err := sshDial(t, addr, user).NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out, err := s.Output(cmd)
	if err != nil {
		t.Fatalf("ssh %s: %v", cmd, err)
	}
	return string(out)
}

// playBotGame plays a bot game of size as user: until it is over when
// moves is 0, else that many moves, leaving the session open (a game in
// play) until the test ends.
func playBotGame(t *testing.T, addr, user string, size, moves int) {
	t.Helper()
	s, err := sshDial(t, addr, user).NewSession()
	if err != nil {
		t.Fatal(err)
	}
	in, _ := s.StdinPipe()
	out, _ := s.StdoutPipe()
	if err := s.Start(fmt.Sprintf("bot --size %d --new", size)); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(out)
	var st wire.State
	if err := dec.Decode(&st); err != nil {
		t.Fatal(err)
	}
	dirs := []string{"left", "down", "right", "up"}
	for i := 0; !st.Over && (moves == 0 || i < moves); i++ {
		for _, d := range dirs {
			io.WriteString(in, d+"\n")
			if err := dec.Decode(&st); err != nil {
				t.Fatal(err)
			}
			if st.Moved || st.Over {
				break
			}
		}
	}
	if moves == 0 {
		in.Close()
		s.Wait()
		return
	}
	t.Cleanup(func() { in.Close(); s.Close() })
}
