package moderation

import (
	"context"
	"log/slog"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ssh2048/ssh2048/internal/callbacks"
	"github.com/ssh2048/ssh2048/store"
)

// RefreshEvery is how often a ban list reads the bans again by itself:
// the bans another process wrote (`ssh2048 admin` offline, another node
// without a bus) hold within it.
const RefreshEvery = 5 * time.Second

// BanList is the bans in force, held in memory, so that checking a login
// against them costs a few map lookups, never a query nor a scan: the
// login path costs what it did before bans. It reads the bans again every
// RefreshEvery, at once when told (Refresh, after a ban here), and at
// once when any node bans on a store that says so (store.BanWatcher).
// Its methods are safe for concurrent use.
type BanList struct {
	store store.Moderator
	log   *slog.Logger
	now   func() time.Time
	bans  atomic.Pointer[banSet]
	kick  chan struct{}
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
	watch func()

	// reading is held by a reading of the bans, so that an older
	// reading never replaces a newer one, and a new ban is told once.
	reading sync.Mutex

	onBan callbacks.Set[func()]
}

// banSet is one reading of the bans.
type banSet struct {
	ids     map[int64]struct{} // every ban of the reading, by its number
	keys    map[string]store.Ban
	players map[int64]store.Ban
	// accountKeys holds the player bans by the keys of their accounts
	// (store.Ban.Keys): a session that logged in before its key's
	// account merged into a banned one still names the account merged
	// away, and is found by its key.
	accountKeys map[string]store.Ban
	// ranges holds the range bans by their (canonical) prefix, and
	// lengths the prefix lengths they have: an address is looked up once
	// per length, masked to it, so that a login's cost does not grow with
	// the number of ranges banned.
	ranges  map[netip.Prefix]store.Ban
	lengths []int
}

// NewBanList reads the bans of s and keeps them fresh until Close.
func NewBanList(ctx context.Context, s store.Moderator, log *slog.Logger) (*BanList, error) {
	if log == nil {
		log = slog.Default()
	}
	l := &BanList{store: s, log: log, now: time.Now, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	if err := l.read(ctx); err != nil {
		return nil, err
	}
	if w, ok := s.(store.BanWatcher); ok {
		l.watch = w.OnBansChanged(l.Refresh)
	}
	go l.loop()
	return l, nil
}

// Refresh asks for the bans to be read again soon; it never blocks.
func (l *BanList) Refresh() {
	select {
	case l.kick <- struct{}{}:
	default:
	}
}

// Reload reads the bans again now, and returns once they hold: after a
// ban on this node, its next login already meets it.
func (l *BanList) Reload(ctx context.Context) error { return l.read(ctx) }

// OnBan has fn called after each reading of the bans that finds a ban
// the reading before had not (made on this node, on another, or
// offline), or a key of a banned account it had not, until stop: the server ends then the sessions the new bans
// hold for, which were let in before them. fn runs on the goroutine that
// read the bans (a refresh, or Reload's caller) and must not block.
func (l *BanList) OnBan(fn func()) (stop func()) { return l.onBan.Add(fn) }

// Close stops the refreshes.
func (l *BanList) Close() {
	l.once.Do(func() {
		if l.watch != nil {
			l.watch()
		}
		close(l.stop)
		<-l.done
	})
}

func (l *BanList) loop() {
	defer close(l.done)
	t := time.NewTicker(RefreshEvery)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		case <-l.kick:
		}
		ctx, cancel := context.WithTimeout(context.Background(), RefreshEvery)
		if err := l.read(ctx); err != nil {
			// The last reading holds meanwhile: a database away for a
			// moment lifts no ban.
			l.log.Warn("moderation: could not read the bans; the last list holds", "err", err)
		}
		cancel()
	}
}

// read reads the bans in force.
func (l *BanList) read(ctx context.Context) error {
	l.reading.Lock()
	defer l.reading.Unlock()
	bans, err := l.store.Bans(ctx, l.now())
	if err != nil {
		return err
	}
	set := &banSet{ids: map[int64]struct{}{}, keys: map[string]store.Ban{}, players: map[int64]store.Ban{},
		accountKeys: map[string]store.Ban{}, ranges: map[netip.Prefix]store.Ban{}}
	old := l.bans.Load()
	fresh := false
	for _, b := range bans {
		set.ids[b.ID] = struct{}{}
		if old != nil {
			if _, known := old.ids[b.ID]; !known {
				fresh = true
			}
		}
		switch b.Kind {
		case store.BanKey:
			set.keys[b.Target] = b
		case store.BanPlayer:
			set.players[b.PlayerID] = b
			for _, k := range b.Keys {
				set.accountKeys[k] = b
				// A key that joined a banned account since the last
				// reading (a link committed as the ban was) is news
				// too: its open sessions were let in before.
				if old != nil {
					if _, known := old.accountKeys[k]; !known {
						fresh = true
					}
				}
			}
		case store.BanCIDR:
			if p := b.Prefix(); p.IsValid() {
				p = p.Masked()
				set.ranges[p] = b
				if !slices.Contains(set.lengths, p.Bits()) {
					set.lengths = append(set.lengths, p.Bits())
				}
			}
		}
	}
	l.bans.Store(set)
	if fresh {
		l.banned()
	}
	return nil
}

// banned tells those OnBan registered that there are new bans.
func (l *BanList) banned() { l.onBan.Each(func(fn func()) { fn() }) }

// inForce is b if it holds now: a ban that ran out since the last
// reading holds no more.
func (l *BanList) inForce(b store.Ban, ok bool) (store.Ban, bool) {
	if !ok || !b.InForce(l.now()) {
		return store.Ban{}, false
	}
	return b, true
}

// Address is the ban of a range that holds addr, if any.
func (l *BanList) Address(addr netip.Addr) (store.Ban, bool) {
	addr = addr.Unmap()
	set := l.bans.Load()
	for _, bits := range set.lengths {
		p, err := addr.Prefix(bits)
		if err != nil {
			continue // an IPv6 length for an IPv4 address
		}
		b, ok := set.ranges[p]
		if b, ok := l.inForce(b, ok); ok {
			return b, true
		}
	}
	return store.Ban{}, false
}

// Key is the ban of a key's fingerprint, if any.
func (l *BanList) Key(fingerprint string) (store.Ban, bool) {
	b, ok := l.bans.Load().keys[fingerprint]
	return l.inForce(b, ok)
}

// Account is the ban of the account that holds the key of that
// fingerprint, if any: the player ban that holds on a session of the
// key whose account merged, since it logged in, into a banned one.
func (l *BanList) Account(fingerprint string) (store.Ban, bool) {
	b, ok := l.bans.Load().accountKeys[fingerprint]
	return l.inForce(b, ok)
}

// Player is the ban of a player, if any. With accounts of several keys,
// the id is the account's (see the stores' subjectPlayers).
func (l *BanList) Player(id int64) (store.Ban, bool) {
	b, ok := l.bans.Load().players[id]
	return l.inForce(b, ok)
}

// Line is what a banned client is told, one line: until when, and the
// reason if the admin chose to show it, cleaned (store.CleanText) as
// everything the admin commands print of the store is.
func Line(b store.Ban) string {
	line := "ssh2048: you are banned from this server " + untilText(b)
	if reason := store.CleanText(b.Reason); b.ShowReason && reason != "" {
		line += ": " + reason
	}
	return line + "."
}
