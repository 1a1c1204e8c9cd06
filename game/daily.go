package game

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/ssh2048/ssh2048/store"
)

// Errors of the contests; callers branch on them with errors.Is.
var (
	// ErrDailyPlayed: the player has played today's challenge of that size:
	// one attempt a day.
	ErrDailyPlayed = errors.New("today's challenge already played")
	// ErrTimeUp: the contest's time is over (the day ended, the race clock
	// ran out); the game is kept as it stood.
	ErrTimeUp = errors.New("time is up")
	// ErrNotYet: the day is not over, so its seed is still secret.
	ErrNotYet = errors.New("the day is not over yet")
)

// dayLayout names a day of the daily challenge, in UTC.
const dayLayout = "2006-01-02"

// Today is the day of the daily challenge now, "YYYY-MM-DD" in UTC.
func (s *Service) Today() string { return s.now().UTC().Format(dayLayout) }

// ParseDay reads a day as Today writes it.
func ParseDay(day string) (time.Time, error) {
	t, err := time.Parse(dayLayout, day)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not a day (YYYY-MM-DD)", day)
	}
	return t, nil
}

func dailyContest(day string) string { return "daily:" + day }

// DailySeed returns the seed of a day's challenge of one size. It is made
// from the day, the size and a secret the server keeps with its data, so
// nobody can compute it before the day; it is published (this method
// answers) once the day is over, and ErrNotYet until then.
func (s *Service) DailySeed(ctx context.Context, day string, size int) (uint64, error) {
	if day >= s.Today() {
		return 0, fmt.Errorf("daily %s: %w", day, ErrNotYet)
	}
	return s.dailySeed(ctx, day, size)
}

func (s *Service) dailySeed(ctx context.Context, day string, size int) (uint64, error) {
	key, err := s.store.Secret(ctx, "daily")
	if err != nil {
		return 0, err
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(day + "/" + strconv.Itoa(size)))
	return binary.LittleEndian.Uint64(mac.Sum(nil)), nil
}

// OpenDaily opens the player's attempt at today's challenge of that size:
// the same tiles for everyone, one attempt a day (ErrDailyPlayed after
// it), resumable until the day ends. Its moves fail with ErrTimeUp once
// the day is over. A guest gets a practice board instead, on a seed of
// its own, kept for the session like a guest's other games.
func (st *Seat) OpenDaily(ctx context.Context, size int) (*Play, error) {
	if err := st.svc.open(); err != nil {
		return nil, err
	}
	svc := st.svc
	day := svc.Today()
	if st.player.Guest {
		// A practice board, not today's tiles: a guest's games are not
		// counted, so today's seed would let anyone rehearse the day's one
		// attempt as a guest, as often as they like. No deadline either:
		// the day's end means nothing to it.
		return st.openGuest(gameKey{0, size, store.KindHuman, dailyContest(day)}, store.NewSeed(), false)
	}
	if err := svc.store.EndPastDailies(ctx, day); err != nil {
		return nil, err
	}
	seed, err := svc.dailySeed(ctx, day, size)
	if err != nil {
		return nil, fmt.Errorf("daily %s: %w", day, err)
	}
	start, _ := ParseDay(day)
	deadline := start.Add(24 * time.Hour)
	key := gameKey{st.player.ID, size, store.KindHuman, dailyContest(day)}
	p, err := st.open(ctx, key, func(p *Play) (*store.SavedGame, error) {
		p.deadline = deadline
		return svc.store.OpenContestGame(ctx, st.player.ID, size, store.KindHuman, key.contest, seed)
	})
	if errors.Is(err, store.ErrContestPlayed) {
		return nil, fmt.Errorf("daily %s %d×%d: %w", day, size, size, ErrDailyPlayed)
	}
	return p, err
}

// DailyBoard ranks a day's challenge of one size.
func (s *Service) DailyBoard(ctx context.Context, day string, size, limit int) ([]store.Entry, error) {
	rows, err := s.store.ContestBoard(ctx, dailyContest(day), size, limit)
	for i := range rows {
		rows[i].Name = store.DisplayName(rows[i].Name, rows[i].Fingerprint)
	}
	return rows, err
}

// Streak is how many days in a row, up to today (or to yesterday, while
// today's is still to play), the player has played a daily challenge.
func (s *Service) Streak(ctx context.Context, p Player) (int, error) {
	if p.Guest {
		return 0, nil
	}
	played, err := s.store.ContestsPlayed(ctx, p.ID, "daily:", 400)
	if err != nil {
		return 0, err
	}
	day, _ := ParseDay(s.Today())
	streak := 0
	for i, c := range played { // newest first
		want := dailyContest(day.AddDate(0, 0, -streak).Format(dayLayout))
		if i == 0 && c != want { // not yet today: count from yesterday
			streak, day = 0, day.AddDate(0, 0, -1)
			want = dailyContest(day.Format(dayLayout))
		}
		if c != want {
			break
		}
		streak++
	}
	return streak, nil
}
