package load

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// RSSReport is the server's resident memory (Config.ServerPID, read from
// /proc) at the steps of a run, in kilobytes: before the players connect,
// with them (at the end of their play, or of a spectator run's first
// half), and with the spectators too; and what that makes a session and a
// spectator. Go's heap grows in steps and the garbage collector lets it
// reach twice what is live, so the figures for a few sessions are noise;
// for hundreds they are what a session costs.
type RSSReport struct {
	BeforeKB       int64   `json:"before_kb"`
	PlayersKB      int64   `json:"players_kb"`
	SpectatorsKB   int64   `json:"spectators_kb,omitempty"`
	PerSessionKB   float64 `json:"per_session_kb"`
	PerSpectatorKB float64 `json:"per_spectator_kb,omitempty"`
	Error          string  `json:"error,omitempty"`
}

// serverProbe reads the server's RSS and CPU time from /proc; a nil one
// reads nothing. Its methods are called from one goroutine at a time.
type serverProbe struct {
	pid int
	rss RSSReport
	err error
}

func newServerProbe(pid int) *serverProbe {
	if pid <= 0 {
		return nil
	}
	return &serverProbe{pid: pid}
}

func (p *serverProbe) ok() bool { return p != nil && p.err == nil }

// markBefore, markPlayers and markSpectators read the RSS at each step.
func (p *serverProbe) markBefore() {
	if p.ok() {
		p.readRSS(&p.rss.BeforeKB)
	}
}

func (p *serverProbe) markPlayers() {
	if p.ok() {
		p.readRSS(&p.rss.PlayersKB)
	}
}

func (p *serverProbe) markSpectators() {
	if p.ok() {
		p.readRSS(&p.rss.SpectatorsKB)
	}
}

// readRSS reads the RSS into *kb; the first failure stops the probe.
func (p *serverProbe) readRSS(kb *int64) {
	if !p.ok() {
		return
	}
	f, err := os.Open("/proc/" + strconv.Itoa(p.pid) + "/status")
	if err != nil {
		p.err = err
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, found := strings.CutPrefix(sc.Text(), "VmRSS:"); found {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				p.err = fmt.Errorf("VmRSS of process %d: %w", p.pid, err)
			}
			*kb = n
			return
		}
	}
	p.err = fmt.Errorf("no VmRSS for process %d", p.pid)
}

// userHZ is the kernel's clock ticks a second in /proc/PID/stat (USER_HZ,
// 100 on Linux whatever the kernel's own tick).
const userHZ = 100

// readCPU reads the user and system time the process used so far.
func (p *serverProbe) readCPU(at *time.Duration) {
	if !p.ok() {
		return
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(p.pid) + "/stat")
	if err != nil {
		p.err = err
		return
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		p.err = fmt.Errorf("short /proc/%d/stat", p.pid)
		return
	}
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	*at = time.Duration((utime + stime) / userHZ * float64(time.Second))
}

// report is the RSS report of a run of sessions players and spectators
// spectators, or nil without a probe.
func (p *serverProbe) report(sessions, spectators int) *RSSReport {
	if p == nil {
		return nil
	}
	r := p.rss
	if p.err != nil {
		r.Error = p.err.Error()
		return &r
	}
	if r.PlayersKB > 0 && sessions > 0 {
		r.PerSessionKB = float64(r.PlayersKB-r.BeforeKB) / float64(sessions)
	}
	if r.SpectatorsKB > 0 && spectators > 0 {
		r.PerSpectatorKB = float64(r.SpectatorsKB-r.PlayersKB) / float64(spectators)
	}
	return &r
}

// writeRSS writes the report's memory line.
func writeRSS(b *strings.Builder, r *RSSReport) {
	if r.Error != "" {
		fmt.Fprintf(b, "  %-12s could not read the server's: %s\n", "rss", r.Error)
		return
	}
	fmt.Fprintf(b, "  %-12s server %d kB before, %d kB with the players (%.0f kB a session)", "rss", r.BeforeKB, r.PlayersKB, r.PerSessionKB)
	if r.SpectatorsKB > 0 {
		fmt.Fprintf(b, ", %d kB with the spectators (%.0f kB a spectator)", r.SpectatorsKB, r.PerSpectatorKB)
	}
	b.WriteString("\n")
}
