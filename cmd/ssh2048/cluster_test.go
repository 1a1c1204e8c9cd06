package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/jackc/pgx/v5"

	"github.com/ssh2048/ssh2048/server/servertest"
	"github.com/ssh2048/ssh2048/store/postgres/pgtest"
	gossh "golang.org/x/crypto/ssh"
)

// cluster is docs/multi-node.md's deployment on one machine: PostgreSQL,
// two nodes sharing a host key and trusting the balancer's PROXY headers,
// and HAProxy in front (TCP mode, send-proxy-v2). HAProxy connects from
// 127.0.0.2, the only address the nodes trust: a test client on
// 127.0.0.1 can also reach a node directly, as an untrusted client.
type cluster struct {
	t       *testing.T
	bin     string
	pg      *pgtest.Server
	url     string
	hostKey string
	nodes   [2]*process
	addrs   [2]string
	lb      string   // the balancer's address
	env     []string // more of the nodes' environment
}

const clusterBalancerSource = "127.0.0.2"

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func startCluster(t *testing.T, env ...string) *cluster {
	t.Helper()
	haproxy, err := exec.LookPath("haproxy")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("haproxy is not installed (apt-get install haproxy)")
		}
		t.Skip("haproxy is not installed (apt-get install haproxy)")
	}
	bin := buildBinary(t)
	srv, err := pgtest.Start()
	if err != nil {
		if os.Getenv("CI") != "true" && strings.Contains(err.Error(), "not installed") {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	c := &cluster{t: t, bin: bin, pg: srv, url: srv.Database(t), hostKey: filepath.Join(t.TempDir(), "host_key"), env: env}
	for i := range c.nodes {
		c.addrs[i] = freeAddr(t)
		c.startNode(i)
	}
	c.lb = freeAddr(t)
	cfg := fmt.Sprintf(`global
    maxconn 4096
defaults
    mode tcp
    timeout connect 2s
    timeout client 10m
    timeout server 10m
    retries 3
    option redispatch
frontend ssh
    bind %s
    default_backend nodes
backend nodes
    balance roundrobin
    default-server send-proxy-v2 check check-send-proxy inter 300ms fall 2 rise 2 source %s
    server a %s
    server b %s
`, c.lb, clusterBalancerSource, c.addrs[0], c.addrs[1])
	cfgPath := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	hp := exec.Command(haproxy, "-db", "-f", cfgPath)
	out := &strings.Builder{}
	hp.Stdout, hp.Stderr = out, out
	if err := hp.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		hp.Process.Kill()
		hp.Wait()
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		conn, err := net.Dial("tcp", c.lb)
		if err == nil {
			conn.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("haproxy does not listen: %v\n%s", err, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return c
}

// startNode starts node i (again) on its address.
func (c *cluster) startNode(i int) {
	c.t.Helper()
	// Every client comes through the balancer from one address, and the
	// racing bots play as fast as they are answered: the per-address
	// limits and the bot move rate are the limits tests of their own.
	env := append([]string{"SSH2048_DATABASE=" + c.url, "SSH2048_HOST_KEY=" + c.hostKey, "SSH2048_PROXY_PROTOCOL_FROM=" + clusterBalancerSource,
		"SSH2048_CONN_RATE_PER_IP=0", "SSH2048_MAX_UNAUTH_PER_IP=0", "SSH2048_MAX_CONNS_PER_IP=0", "SSH2048_BOT_RATE=0"}, c.env...)
	c.nodes[i] = startProcessAt(c.t, c.bin, filepath.Join(c.t.TempDir(), "data"), c.addrs[i], env...)
}

// dialRetry dials addr until it answers, for a balancer still noticing a
// dead node.
func dialRetry(t *testing.T, addr string, key gossh.Signer, hostKey *string) *gossh.Client {
	t.Helper()
	return dialRetryAs(t, addr, "player", key, hostKey)
}

// dialRetryAs is dialRetry as the player named user.
func dialRetryAs(t *testing.T, addr, user string, key gossh.Signer, hostKey *string) *gossh.Client {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := gossh.Dial("tcp", addr, &gossh.ClientConfig{
			User: user, Auth: []gossh.AuthMethod{gossh.PublicKeys(key)}, Timeout: 5 * time.Second,
			HostKeyCallback: func(_ string, _ net.Addr, k gossh.PublicKey) error {
				*hostKey = gossh.FingerprintSHA256(k)
				return nil
			},
		})
		if err == nil {
			t.Cleanup(func() { c.Close() })
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("dial %s: %v", addr, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// nodeOf says which node holds the game of the player with key: the
// database's game_holders names nodes by host, process id and a random
// suffix.
func (c *cluster) nodeOf(key gossh.Signer) int {
	c.t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, c.url)
	if err != nil {
		c.t.Fatal(err)
	}
	defer conn.Close(ctx)
	var node string
	err = conn.QueryRow(ctx, `SELECT h.node FROM game_holders h JOIN games g ON g.id = h.game_id
		JOIN players p ON p.id = g.player_id WHERE p.fingerprint = $1`, gossh.FingerprintSHA256(key.PublicKey())).Scan(&node)
	if err != nil {
		c.t.Fatalf("holder of the game: %v", err)
	}
	for i, n := range c.nodes {
		if strings.Contains(node, fmt.Sprintf("-%d-", n.cmd.Process.Pid)) {
			return i
		}
	}
	c.t.Fatalf("node %q is none of the cluster's", node)
	return -1
}

// move sends a move and reads its answer.
func (b *bot) move(t *testing.T, d string) botState {
	t.Helper()
	if _, err := b.in.Write([]byte(d + "\n")); err != nil {
		t.Fatal(err)
	}
	return b.read(t)
}

var cycle = []string{"up", "left", "down", "right"}

// playUntilRefused pipelines moves and counts the answers until the
// session ends; it returns the last state answered.
func (b *bot) playUntilRefused(last botState) botState {
	go func() {
		for i := 0; ; i++ {
			if _, err := b.in.Write([]byte(cycle[i%4] + "\n")); err != nil {
				return
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	for {
		line, err := b.out.ReadBytes('\n')
		if err != nil {
			return last
		}
		var st botState
		if jsonUnmarshal(line, &st) == nil && st.Board != nil {
			last = st
		}
	}
}

func exitStatus(err error) int {
	var ee *gossh.ExitError
	if errors.As(err, &ee) {
		return ee.ExitStatus()
	}
	return -1
}

// TestClusterBehindHAProxy brings up docs/multi-node.md on loopback and
// plays through it: one server to the client (one host key, real client
// addresses behind the balancer), a game taken over across nodes with no
// move lost or doubled, kill -9 of a node mid-move, and PostgreSQL
// restarted under a player.
func TestClusterBehindHAProxy(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL, two nodes and HAProxy")
	}
	c := startCluster(t)

	// One server: the same host key from both nodes, and each node sees
	// the client's address, not the balancer's.
	keys := map[string]bool{}
	for range 4 {
		var hk string
		conn := dialRetry(t, c.lb, clientKey(t), &hk)
		sess, err := conn.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		if out, err := sess.Output("help"); err != nil {
			t.Fatalf("help through the balancer: %v %s", err, out)
		}
		conn.Close()
		keys[hk] = true
	}
	if len(keys) != 1 {
		t.Fatalf("the balancer shows %d host keys, want one: %v", len(keys), keys)
	}
	first := c.nodes // their logs are read once they have exited, at the end

	// A bot plays through the balancer; a session of the same key on the
	// other node takes the game over with every answered move.
	key := clientKey(t)
	var hk string
	b1 := startBot8(t, dialRetry(t, c.lb, key, &hk))
	last := b1.read(t)
	for i := range 30 {
		last = b1.move(t, cycle[i%4])
	}
	other := 1 - c.nodeOf(key)
	b2 := startBot8(t, dialRetry(t, c.addrs[other], key, &hk))
	resumed := b2.read(t)
	select {
	case err := <-b1.done:
		if exitStatus(err) != 3 {
			t.Fatalf("the first session ended with %v (%s), want status 3", err, b1.stderr.String())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the first session still runs 5 s after the takeover")
	}
	if resumed.Moves != last.Moves || !equalBoards(resumed.Board, last.Board) {
		t.Fatalf("taken over at %d moves %v; the first session was answered %d moves %v", resumed.Moves, resumed.Board, last.Moves, last.Board)
	}

	// kill -9 of the node mid-move: the game resumes on the other node at
	// the last answered move (or one more, committed but not answered).
	go func() {
		time.Sleep(time.Second)
		c.nodes[other].cmd.Process.Kill()
	}()
	answered := b2.playUntilRefused(resumed)
	<-c.nodes[other].exited
	b3 := startBot8(t, dialRetry(t, c.lb, key, &hk))
	after := b3.read(t)
	if after.Moves < answered.Moves || after.Moves > answered.Moves+1 {
		t.Fatalf("after kill -9: resumed at %d moves, %d were answered", after.Moves, answered.Moves)
	}
	t.Logf("kill -9 after %d answered moves: resumed at %d on the other node", answered.Moves, after.Moves)
	c.startNode(other)

	// PostgreSQL stops under the player: the session says its game is
	// saved up to the last answered move; once PostgreSQL is back, the
	// nodes reconnect by themselves and the game resumes there.
	stopped := make(chan error, 1)
	go func() {
		time.Sleep(500 * time.Millisecond)
		stopped <- c.pg.Stop()
	}()
	answered = b3.playUntilRefused(after)
	if status := exitStatus(<-b3.done); status != 1 || !strings.Contains(b3.stderr.String(), "could not save your move") {
		t.Fatalf("session when PostgreSQL stopped: status %d, stderr %q", status, b3.stderr.String())
	}
	// The session can be refused while pg_ctl still waits for the
	// server to go: start it again only once it has.
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	if err := c.pg.Start(); err != nil {
		t.Fatal(err)
	}
	var b4 *bot
	deadline := time.Now().Add(30 * time.Second)
	for {
		b4 = startBot8(t, dialRetry(t, c.lb, key, &hk))
		line, err := b4.out.ReadBytes('\n')
		var st botState
		if err == nil && jsonUnmarshal(line, &st) == nil && st.Board != nil {
			if st.Moves < answered.Moves || st.Moves > answered.Moves+1 {
				t.Fatalf("after PostgreSQL's restart: resumed at %d moves, %d were answered", st.Moves, answered.Moves)
			}
			t.Logf("PostgreSQL stopped after %d answered moves: resumed at %d once it was back", answered.Moves, st.Moves)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no game 30 s after PostgreSQL came back: %v %s", err, b4.stderr.String())
		}
		time.Sleep(500 * time.Millisecond)
	}
	if st := b4.move(t, "up"); st.Board == nil {
		t.Fatal("no move after PostgreSQL came back")
	}

	// Each node saw the clients' address, not the balancer's.
	for _, n := range c.nodes {
		n.cmd.Process.Signal(syscall.SIGTERM)
		<-n.exited
	}
	for i, n := range first {
		if n.cmd.ProcessState == nil {
			<-n.exited
		}
		logs := n.logs.String()
		if !strings.Contains(logs, `"msg":"connect"`) {
			t.Fatalf("node %d served none of 4 connections through the round-robin balancer", i)
		}
		if strings.Contains(logs, `"remote":"`+clusterBalancerSource) || !strings.Contains(logs, `"remote":"127.0.0.1:`) {
			t.Fatalf("node %d logs the balancer's address, not the client's:\n%s", i, logs)
		}
	}
}

func jsonUnmarshal(line []byte, v any) error { return json.Unmarshal(line, v) }

// startBot8 plays the bot protocol on 8×8, where a game outlasts the
// test's few hundred moves.
func startBot8(t *testing.T, c *gossh.Client) *bot {
	t.Helper()
	return startBotCommand(t, c, "bot --size 8")
}

// startBotCommand starts a bot command (bot with its flags).
func startBotCommand(t *testing.T, c *gossh.Client, cmd string) *bot {
	t.Helper()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	in, _ := s.StdinPipe()
	out, _ := s.StdoutPipe()
	b := &bot{in: in, out: bufio.NewReader(out), stderr: &bytes.Buffer{}, done: make(chan error, 1)}
	s.Stderr = b.stderr
	if err := s.Start(cmd); err != nil {
		t.Fatal(err)
	}
	go func() { b.done <- s.Wait() }()
	return b
}

// TestServeWithUnreachableDatabase: PostgreSQL not there at start: serve
// exits 1 at once, naming what it could not reach.
func TestServeWithUnreachableDatabase(t *testing.T) {
	bin := buildBinary(t)
	cmd := exec.Command(bin, "serve", "--listen", "127.0.0.1:0", "--data", t.TempDir(),
		"--database", "postgres://ssh2048@127.0.0.1:1/ssh2048?connect_timeout=5")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("serve with no database: %v, want exit status 1\n%s", err, out)
	}
	if !strings.Contains(string(out), "open postgres 127.0.0.1:1/ssh2048: cannot connect") {
		t.Fatalf("the error does not say what failed:\n%s", out)
	}
	if strings.Contains(string(out), `"listening"`) || strings.Contains(string(out), "msg=listening") {
		t.Fatalf("serve listened without its database:\n%s", out)
	}
	// ssh2048 play on the same database, in a terminal (without one it
	// says it needs one first), says the same before it draws.
	cmd = exec.Command(bin, "play", "--database", "postgres://ssh2048@127.0.0.1:1/ssh2048?connect_timeout=5")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 24, Cols: 80})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	var screen bytes.Buffer
	copied := make(chan struct{})
	go func() { io.Copy(&screen, tty); close(copied) }() // until the child's side closes
	err = cmd.Wait()
	<-copied
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(screen.String(), "open postgres 127.0.0.1:1/ssh2048: cannot connect") {
		t.Fatalf("play with no database: %v\n%s", err, screen.String())
	}
}

// TestClusterRaces: races across nodes, end to end. Ann and bob meet in a
// private room, each on a node of their own (connected directly); ann
// hosts and starts it, each sees the other's score, and the race ends
// with places and both ratings changed in PostgreSQL. Meanwhile two bots,
// one on each node, meet in the public lobby of 5×5 and race it through.
func TestClusterRaces(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL, two nodes and HAProxy")
	}
	c := startCluster(t, "SSH2048_RACE_LENGTH=6s")
	var hk string
	ann := servertest.OpenScreen(t, dialRetryAs(t, c.addrs[0], "ann", clientKey(t), &hk), "race --room cluster-fox", 80, 24)
	ann.WaitText("ann's room", "room cluster-fox", "(host)", "Waiting for a second racer")
	bob := servertest.OpenScreen(t, dialRetryAs(t, c.addrs[1], "bob", clientKey(t), &hk), "race --room cluster-fox", 80, 24)
	bob.WaitText("bob in ann's room, on the other node", "Racers 2 of 8", "(the host) to start")
	ann.WaitText("bob on ann's screen", "Racers 2 of 8", "Press enter to start")

	// The bots' lobby race, beside it.
	lobby := make(chan string, 2)
	for i := range 2 {
		b := startRaceBot(t, dialRetry(t, c.addrs[i], clientKey(t), &hk), "bot --race --size 5")
		go func() { lobby <- b.raceThrough() }()
	}

	ann.Send("\r")
	bob.WaitText("the race on bob's node", "left", "Place")
	ann.WaitText("the race on ann's node", "left", "Place")
	// Each plays; each sees the other's score by the other's name.
	scores := [2]string{}
	for range 100 {
		for i, s := range []*servertest.Screen{ann, bob} {
			s.Send(arrowKeys)
			if m := clusterScoreRe.FindStringSubmatch(s.Text()); m != nil {
				scores[i] = m[1]
			}
		}
		if scores[0] != "" && scores[0] != "0" && scores[1] != "" && scores[1] != "0" {
			break
		}
		time.Sleep(30 * time.Millisecond)
	}
	if scores[0] == "" || scores[0] == "0" || scores[1] == "" || scores[1] == "0" {
		t.Fatalf("no scores: ann %q, bob %q", scores[0], scores[1])
	}
	// Each node's screen shows the other racer's score, from the other
	// node, as the other's own screen does (the keys have stopped).
	for i, s := range []*servertest.Screen{ann, bob} {
		other, name := []*servertest.Screen{bob, ann}[i], []string{"bob", "ann"}[i]
		s.WaitUntil(name+"'s score from the other node", func(text string) bool {
			m := clusterScoreRe.FindStringSubmatch(other.Text())
			if m == nil && strings.Contains(text, "Results") {
				t.Logf("the race ended before %s's live score was seen: the results show it", name)
				return true
			}
			if m == nil {
				return false
			}
			for _, l := range strings.Split(text, "\n") {
				if strings.Contains(l, name) && strings.Contains(l, " "+m[1]+" ") {
					return true
				}
			}
			return false
		})
	}
	resAnn := ann.WaitText("ann's results", "Results", "1500 → ")
	resBob := bob.WaitText("bob's results", "Results", "1500 → ")
	if !(strings.Contains(resAnn, "(+") && strings.Contains(resBob, "(−") || strings.Contains(resAnn, "(−") && strings.Contains(resBob, "(+")) {
		t.Fatalf("one wins, one loses, on both nodes:\n%s\n%s", resAnn, resBob)
	}
	// Each node's results show both racers' scores.
	for _, res := range []string{resAnn, resBob} {
		if rows := clusterResultRe.FindAllStringSubmatch(res, -1); len(rows) != 2 || rows[0][1] == "0" || rows[1][1] == "0" {
			t.Fatalf("the results do not show both racers' scores:\n%s", res)
		}
	}

	// Stored once, in PostgreSQL: the room's race with both entries and
	// ratings, and the bots' lobby race, unrated.
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, c.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var entries, places, rated int
	err = conn.QueryRow(ctx, `SELECT count(*), sum(e.place), count(e.rating_after) FROM races r JOIN race_entries e ON e.race_id = r.id
		WHERE r.room = 'cluster-fox'`).Scan(&entries, &places, &rated)
	if err != nil || entries != 2 || places != 3 || rated != 2 {
		t.Fatalf("the room's race in PostgreSQL: %d entries, places adding to %d, %d rated; %v", entries, places, rated, err)
	}
	var ratings int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM ratings WHERE races = 1 AND rating <> 1500`).Scan(&ratings); err != nil || ratings != 2 {
		t.Fatalf("ratings in PostgreSQL: %d changed; %v", ratings, err)
	}
	for range 2 {
		select {
		case got := <-lobby:
			if got != "" {
				t.Fatal(got)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the bots' lobby race did not end within 30 s")
		}
	}
	var lobbyRaces, lobbyEntries int
	if err := conn.QueryRow(ctx, `SELECT count(DISTINCT r.id), count(*) FROM races r JOIN race_entries e ON e.race_id = r.id
		WHERE r.room = '' AND r.bots AND r.size = 5`).Scan(&lobbyRaces, &lobbyEntries); err != nil || lobbyRaces != 1 || lobbyEntries != 2 {
		t.Fatalf("the bots' lobby race in PostgreSQL: %d races, %d entries; %v", lobbyRaces, lobbyEntries, err)
	}
	ann.Send("q")
	bob.Send("q")
}

var (
	clusterScoreRe  = regexp.MustCompile(`Score (\d+)`)
	clusterResultRe = regexp.MustCompile(`[12]  (?:ann|bob) +(\d+) `) // a results row: place, name, score
)

const arrowKeys = "\x1b[D\x1b[A\x1b[C\x1b[B"

// raceBot is a bot racing through the bot protocol.
type raceBot struct{ *bot }

func startRaceBot(t *testing.T, c *gossh.Client, cmd string) raceBot {
	t.Helper()
	return raceBot{startBotCommand(t, c, cmd)}
}

// raceThrough plays the race to its end and says what went wrong, if
// anything: the bot must race one opponent, the bot of the other node,
// and finish placed, with status 0.
func (b raceBot) raceThrough() string {
	type state struct {
		Race *struct {
			Phase     string
			Place     int
			Opponents []struct{ Name string }
		}
	}
	var last state
	for i := 0; ; i++ {
		line, err := b.out.ReadBytes('\n')
		if err != nil {
			break
		}
		var st state
		if json.Unmarshal(line, &st) != nil || st.Race == nil {
			return fmt.Sprintf("racing bot: line %q", line)
		}
		last = st
		if st.Race.Phase == "finished" {
			break
		}
		// A move sent after the server wrote its last line fails: that
		// line is still to be read.
		_, _ = b.in.Write([]byte(cycle[i%4] + "\n"))
	}
	if err := <-b.done; err != nil {
		return fmt.Sprintf("racing bot ended with %v: %s", err, b.stderr)
	}
	if last.Race == nil || last.Race.Phase != "finished" || last.Race.Place == 0 || len(last.Race.Opponents) != 1 {
		return fmt.Sprintf("racing bot's last state: %+v", last.Race)
	}
	return ""
}
