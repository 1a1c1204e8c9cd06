package reader

import "time"

// SetClocks sets how often s looks for what to show next, and how long
// TV stays on a game that stopped, for tests that cannot wait seconds.
func SetClocks(s *Spectator, every, hold time.Duration) { s.f.Every, s.f.Hold = every, hold }
