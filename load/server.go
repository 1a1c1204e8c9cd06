package load

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
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

// ServerReport is what the server (Config.ServerPID) used over the run,
// from before the first session connected until the last one ended (the
// check through scores is not part of it): its CPU time, user and
// system, and that per key answered; and its peak RSS (VmHWM), the most
// it held since it started, which is the run's peak for a server started
// for the run.
type ServerReport struct {
	PID int `json:"pid"`
	// CPUSeconds is the server's CPU time over the run; RampCPUSeconds is
	// the part of it spent until every session had connected (the
	// handshakes, and the keys of the sessions already in).
	CPUSeconds     float64 `json:"cpu_s"`
	RampCPUSeconds float64 `json:"ramp_cpu_s"`
	// CPUPerKeyUS is CPUSeconds over the keys answered (tui: answered by a
	// frame; bot: replied to), in microseconds; 0 when none was.
	CPUPerKeyUS float64 `json:"cpu_us_per_key"`
	// PlayCPUSeconds is the part of CPUSeconds from the ramp-up's end
	// until the sessions were told to stop, while every session played;
	// CPUPerPlayKeyUS is it over the keys answered of those sent then
	// (Report.Steady). They leave out what logging in and leaving cost,
	// which CPUPerKeyUS spreads over the keys: what a key costs a server
	// in play, to compare builds by. Both 0 in a run with spectators,
	// whose two halves have figures of their own (WatchReport).
	PlayCPUSeconds  float64 `json:"play_cpu_s"`
	CPUPerPlayKeyUS float64 `json:"cpu_us_per_play_key"`
	PeakRSSKB       int64   `json:"peak_rss_kb"`
	Error           string  `json:"error,omitempty"`
}

// serverProbe reads the server's RSS and CPU time from /proc; a nil one
// reads nothing. Its methods are called from one goroutine at a time.
type serverProbe struct {
	pid int
	rss RSSReport
	cpu [3]time.Duration // before the sessions, at the ramp-up's end, at the run's end
	// stopCPU is the CPU time when the sessions were told to stop (0: not
	// read, in a run with spectators).
	stopCPU time.Duration
	peak    int64 // VmHWM at the run's end, kB
	err     error
}

// ErrNoServer marks a --server-pid with no process to read.
var ErrNoServer = errors.New("no such process")

// checkPID reports whether the server's CPU time can be read, as the run
// will read it.
func checkPID(pid int) error {
	p := &serverProbe{pid: pid}
	var cpu time.Duration
	if p.readCPU(&cpu); p.err != nil {
		if errors.Is(p.err, fs.ErrNotExist) {
			return fmt.Errorf("%w (no /proc/%d/stat: the server must run on this machine, under Linux)", ErrNoServer, pid)
		}
		return p.err
	}
	return nil
}

func newServerProbe(pid int) *serverProbe {
	if pid <= 0 {
		return nil
	}
	return &serverProbe{pid: pid}
}

func (p *serverProbe) ok() bool { return p != nil && p.err == nil }

// markBefore, markPlayers and markSpectators read the RSS at each step;
// markBefore, markRamp, markStop and markEnd the CPU time.
func (p *serverProbe) markBefore() {
	if p.ok() {
		p.readCPU(&p.cpu[0])
		p.readRSS(&p.rss.BeforeKB)
	}
}

func (p *serverProbe) markRamp() {
	if p.ok() {
		p.readCPU(&p.cpu[1])
	}
}

func (p *serverProbe) markStop() {
	if p.ok() {
		p.readCPU(&p.stopCPU)
	}
}

func (p *serverProbe) markEnd() {
	if p.ok() {
		p.readCPU(&p.cpu[2])
		p.readStatus("VmHWM", &p.peak)
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
func (p *serverProbe) readRSS(kb *int64) { p.readStatus("VmRSS", kb) }

// readStatus reads a field of /proc/PID/status in kB into *kb; the first
// failure stops the probe.
func (p *serverProbe) readStatus(field string, kb *int64) {
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
		if v, found := strings.CutPrefix(sc.Text(), field+":"); found {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				p.err = fmt.Errorf("%s of process %d: %w", field, p.pid, err)
			}
			*kb = n
			return
		}
	}
	p.err = fmt.Errorf("no %s for process %d", field, p.pid)
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
	utime, err1 := strconv.ParseFloat(f[11], 64)
	stime, err2 := strconv.ParseFloat(f[12], 64)
	if err := errors.Join(err1, err2); err != nil {
		p.err = fmt.Errorf("/proc/%d/stat: %w", p.pid, err)
		return
	}
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

// serverReport is what the server used over the run, for keys answered
// in all and of those sent in play (playKeys), or nil without a probe.
func (p *serverProbe) serverReport(keys, playKeys int) *ServerReport {
	if p == nil {
		return nil
	}
	r := &ServerReport{PID: p.pid}
	if p.err != nil {
		r.Error = p.err.Error()
		return r
	}
	cpu := p.cpu[2] - p.cpu[0]
	r.CPUSeconds = cpu.Seconds()
	r.RampCPUSeconds = (p.cpu[1] - p.cpu[0]).Seconds()
	if keys > 0 {
		r.CPUPerKeyUS = float64(cpu.Microseconds()) / float64(keys)
	}
	if p.stopCPU > 0 {
		play := p.stopCPU - p.cpu[1]
		r.PlayCPUSeconds = play.Seconds()
		if playKeys > 0 {
			r.CPUPerPlayKeyUS = float64(play.Microseconds()) / float64(playKeys)
		}
	}
	r.PeakRSSKB = p.peak
	return r
}

// writeServer writes the report's server line.
func writeServer(b *strings.Builder, r *ServerReport, unit string) {
	if r.Error != "" {
		fmt.Fprintf(b, "  %-12s could not read process %d: %s\n", "server", r.PID, r.Error)
		return
	}
	fmt.Fprintf(b, "  %-12s %.0f µs CPU per %s answered: %.2f s CPU over the run (%.2f s until all were in", "server", r.CPUPerKeyUS, unit, r.CPUSeconds, r.RampCPUSeconds)
	if r.CPUPerPlayKeyUS > 0 {
		fmt.Fprintf(b, "; %.2f s while all played, %.0f µs a %s", r.PlayCPUSeconds, r.CPUPerPlayKeyUS, unit)
	}
	fmt.Fprintf(b, "); peak RSS %d kB\n", r.PeakRSSKB)
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
