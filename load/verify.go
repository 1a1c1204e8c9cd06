package load

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/ssh2048/ssh2048/wire"
)

// maxMismatches is how many mismatching players the report names.
const maxMismatches = 10

// maxScoresOutput bounds what the check reads from `scores --json`, a
// page of at most wire.MaxScoresLimit entries: many times what a page
// takes, so that only a server that never stops writing reaches it.
const maxScoresOutput = 8 << 20

// VerifyReport is the final check through `scores --json`.
type VerifyReport struct {
	Checked bool   `json:"checked"`
	Command string `json:"command,omitempty"` // what was run on the server (with --offset for the pages after the first)
	// What is compared with the stored moves: "replies" (bot mode: the
	// moves counter of the last reply, exact); in tui mode "screen" (the
	// move count each game screen showed once every key was applied, exact),
	// "framed_keys" (keys answered by a frame, inferred, where no screen
	// could be read: see docs/load-testing.md), or "screen_or_framed_keys"
	// (some of each).
	Basis string `json:"basis,omitempty"`
	// ScreenRead: tui players whose count is their screen's. FramedOff:
	// of those, how many had a different count of keys answered by a
	// frame, the inference the screen's count replaces (a late frame, or
	// a redraw taken for a key's frame); it is not a failure.
	ScreenRead int        `json:"screen_read"`
	FramedOff  int        `json:"framed_off"`
	Players    int        `json:"players"`    // players that connected
	Listed     int        `json:"listed"`     // found by name in the listing
	NotListed  int        `json:"not_listed"` // with moves expected, but not in the listing
	Ambiguous  int        `json:"ambiguous"`  // name listed more than once
	Exact      int        `json:"exact"`      // stored moves equal what the session saw
	Lost       int        `json:"lost"`       // fewer moves stored than the session saw
	Extra      int        `json:"extra"`      // more moves stored than the session saw
	Inexact    int        `json:"inexact"`    // no final screen count, and stored moves differ from the inferred count (see verify)
	Expected   int        `json:"expected_moves"`
	Stored     int        `json:"stored_moves"`
	Mismatches []Mismatch `json:"mismatches,omitempty"` // the first few
	Note       string     `json:"note,omitempty"`
	Error      string     `json:"error,omitempty"`
}

// Mismatch is one player whose stored moves differ from what it saw.
type Mismatch struct {
	Name     string `json:"name"`
	Expected int    `json:"expected"`
	Stored   int    `json:"stored"` // -1: not listed
}

// OK reports whether every move the sessions saw was counted.
func (v VerifyReport) OK() bool {
	if !v.Checked {
		return v.Error == ""
	}
	return v.Error == "" && v.NotListed == 0 && v.Ambiguous == 0 && v.Lost == 0 && v.Extra == 0 && v.Inexact == 0
}

// verify compares each connected player's moves with the leaderboard. It
// connects with a key of its own, as a player with no games.
func verify(ctx context.Context, cfg *Config, sessions []*session) VerifyReport {
	v := VerifyReport{Checked: true, Command: fmt.Sprintf("scores --json --limit %d", wire.MaxScoresLimit)}
	switch cfg.Mode {
	case ModeBot:
		v.Command = fmt.Sprintf("scores --bots --json --limit %d", wire.MaxScoresLimit)
		v.Basis = "replies"
	default:
		v.Basis = "framed_keys"
	}
	if cfg.Size != 0 {
		v.Command += fmt.Sprintf(" --size %d", cfg.Size)
	}
	entries, unpaged, err := fetchAllScores(ctx, cfg, v.Command)
	if pages := len(entries)/wire.MaxScoresLimit + 1; err == nil && !unpaged && pages > 1 {
		v.Command += fmt.Sprintf(" and --offset for %d pages", pages)
	}
	if err != nil {
		v.Checked = false
		v.Error = err.Error()
		return v
	}
	byName := make(map[string][]wire.ScoreEntry, len(entries))
	for _, e := range entries {
		byName[e.Name] = append(byName[e.Name], e)
	}
	for _, s := range sessions {
		if !s.connected {
			continue
		}
		v.Players++
		want, inferred := s.answered, false
		switch {
		case cfg.Mode == ModeBot:
			want = s.lastMoves
		case s.screenRead:
			want = s.screenMoves
			v.ScreenRead++
			if s.answered != s.screenMoves {
				v.FramedOff++
			}
		default:
			inferred = true
		}
		v.Expected += want
		got := byName[s.name]
		switch {
		case len(got) > 1:
			v.Ambiguous++
			continue
		case len(got) == 0 && want == 0:
			v.Exact++ // nothing to count: no game on the board yet
			continue
		case len(got) == 0 && inferred:
			v.Inexact++
			continue
		case len(got) == 0:
			v.NotListed++
			v.mismatch(s.name, want, -1)
			continue
		}
		v.Listed++
		stored := got[0].Moves
		v.Stored += stored
		switch {
		case stored == want:
			v.Exact++
		case inferred:
			v.Inexact++
		case stored < want:
			v.Lost++
			v.mismatch(s.name, want, stored)
		default:
			v.Extra++
			v.mismatch(s.name, want, stored)
		}
	}
	if cfg.Mode != ModeBot {
		switch {
		case v.ScreenRead == v.Players:
			v.Basis = "screen"
		case v.ScreenRead > 0:
			v.Basis = "screen_or_framed_keys"
		}
		if v.ScreenRead < v.Players {
			v.Note = "tui: where the game screen's final move count could not be read (a session that ended early, a screen with no count, keys the server had not applied within --connect-timeout), a key is taken to have moved the board when a frame answered it (a key that changes nothing redraws nothing); a difference from that inference is inexact, not lost or extra"
		}
	}
	if unpaged && v.NotListed > 0 {
		v.Note += fmt.Sprintf("; the server lists no page past the first %d players (no scores --offset: an older server), so players not listed may rank below them", len(entries))
	}
	sort.Slice(v.Mismatches, func(i, j int) bool { return v.Mismatches[i].Name < v.Mismatches[j].Name })
	return v
}

func (v *VerifyReport) mismatch(name string, want, got int) {
	if len(v.Mismatches) < maxMismatches {
		v.Mismatches = append(v.Mismatches, Mismatch{Name: name, Expected: want, Stored: got})
	}
}

// maxScoresPages bounds how many pages of the listing the check reads: a
// million players.
const maxScoresPages = 1000

// fetchAllScores reads the whole listing, a page of wire.MaxScoresLimit
// players at a time (cmd, then cmd --offset N), until a page comes short.
// A server older than --offset fails the second page: what the first
// listed is returned, and unpaged.
func fetchAllScores(ctx context.Context, cfg *Config, cmd string) (all []wire.ScoreEntry, unpaged bool, err error) {
	for page := range maxScoresPages {
		pageCmd := cmd
		if page > 0 {
			pageCmd += fmt.Sprintf(" --offset %d", page*wire.MaxScoresLimit)
		}
		entries, err := fetchScoresRetrying(ctx, cfg, pageCmd)
		switch {
		case err != nil && page == 1:
			return all, true, nil
		case err != nil:
			return nil, false, err
		}
		all = append(all, entries...)
		if len(entries) < wire.MaxScoresLimit {
			return all, false, nil
		}
	}
	return nil, false, fmt.Errorf("verify: %s: more than %d pages of players", cmd, maxScoresPages)
}

// verifyRetry is the pause between tries of the check (see VerifyWait).
const verifyRetry = 250 * time.Millisecond

// fetchScoresRetrying tries fetchScores until it works or VerifyWait has
// passed.
func fetchScoresRetrying(ctx context.Context, cfg *Config, cmd string) ([]wire.ScoreEntry, error) {
	until := time.Now().Add(cfg.VerifyWait)
	tries := int(cfg.VerifyWait/verifyRetry) + 1
	var err error
	for range tries {
		var entries []wire.ScoreEntry
		if entries, err = fetchScores(ctx, cfg, cmd); err == nil {
			return entries, nil
		}
		if !time.Now().Add(verifyRetry).Before(until) || !sleepUntil(ctx, time.Now().Add(verifyRetry), nil) {
			break
		}
	}
	return nil, err
}

// fetchScores runs a scores command and decodes its JSON.
func fetchScores(ctx context.Context, cfg *Config, cmd string) ([]wire.ScoreEntry, error) {
	key, err := newSigner()
	if err != nil {
		return nil, err
	}
	client, err := dial(ctx, cfg.Addr, cfg.NamePrefix+"check", key, cfg.ConnectTimeout)
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(ctx, 3*cfg.ConnectTimeout)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { client.Close() })
	defer stop()
	sess, err := client.NewSession()
	if err != nil {
		return nil, fmt.Errorf("verify: open session: %w", err)
	}
	defer sess.Close()
	out := &limitedBuffer{max: maxScoresOutput}
	errOut := &capped{max: 512}
	sess.Stdout, sess.Stderr = out, errOut
	if err := sess.Run(cmd); err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return nil, fmt.Errorf("verify: %s: %w; stderr %q", cmd, err, errOut.String())
	}
	if out.over {
		return nil, fmt.Errorf("verify: %s: output over %d bytes", cmd, maxScoresOutput)
	}
	var entries []wire.ScoreEntry
	if err := json.Unmarshal(out.Bytes(), &entries); err != nil {
		return nil, fmt.Errorf("verify: %s: decode: %w", cmd, err)
	}
	return entries, nil
}

// limitedBuffer keeps up to max bytes and notes whether more came.
type limitedBuffer struct {
	bytes.Buffer
	max  int
	over bool
}

var errTooMuch = errors.New("output too large")

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if b.Len()+len(p) > b.max {
		b.over = true
		return 0, errTooMuch
	}
	return b.Buffer.Write(p)
}
