// Package sqlite is the default store (store.Store and its optional
// abilities): it keeps ssh2048's players and games in one SQLite file and
// answers leaderboard queries. It is the only package besides the binary's
// main that links the cgo SQLite driver.
//
// Every game is kept replayable: its size, seed and the directions played
// (a digit a move, in its row and then in chunks: moves.go). Writes from
// all sessions go through one writer goroutine that commits them in groups
// (group commit), so AppendMove returns only once the move is durable, and
// reads use a separate pool of read-only connections that WAL mode lets
// run alongside the writer. A player's best of each board (player_bests,
// what leaderboards walk) is offered the games moved since the last time
// together, not a move at a time (bests.go). Guests are never stored: the
// server simply does not call the store for them.
//
// Durability: commits use synchronous=FULL by default (PowerSafe): each
// group's commit fsyncs the WAL, so an acknowledged move survives kill -9
// and power loss alike, at the price of one fsync per group. CrashSafe
// (synchronous=NORMAL) drops that fsync: still safe against kill -9, but a
// power cut may lose the commits since the last background checkpoint
// (at most checkpointEvery's worth of moves); the database is never
// corrupted either way. See WithDurability.
package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ssh2048/ssh2048/internal/callbacks"
	"github.com/ssh2048/ssh2048/migrations"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/internal/accounts"
	"github.com/ssh2048/ssh2048/store/internal/bests"
	"github.com/ssh2048/ssh2048/store/internal/moderation"
	"github.com/ssh2048/ssh2048/store/internal/ranks"

	"github.com/mattn/go-sqlite3"
)

// FileName is the database file created inside the data directory.
const FileName = "ssh2048.db"

// Option configures Open.
type Option func(*options)

type options struct {
	log         *slog.Logger
	synchronous string
	obs         store.Observer
	bestsEvery  time.Duration // how often the marked games are offered (bests.go)
}

// WithLogger sets where the store logs (migrations, replay mismatches).
// The default is slog.Default().
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.log = l } }

// Durability is SQLite's synchronous setting for commits in WAL mode.
type Durability string

const (
	// PowerSafe (synchronous=FULL, the default) fsyncs the WAL at every
	// commit: a committed move survives a power cut or a kernel crash.
	// Group commit makes it one fsync per group, not per move.
	PowerSafe Durability = "FULL"
	// CrashSafe (synchronous=NORMAL) survives the process being killed
	// (kill -9 included) but may lose the last commits on power loss.
	// It saves the fsync, whose tail latency dominates p99 on slow disks.
	CrashSafe Durability = "NORMAL"
)

// WithDurability chooses PowerSafe (default) or CrashSafe.
func WithDurability(d Durability) Option { return func(o *options) { o.synchronous = string(d) } }

// The contract and the optional abilities this store has (package store
// documents each), held at compile time.
var (
	_ store.Store            = (*Store)(nil)
	_ store.PagedBoarder     = (*Store)(nil)
	_ store.BotRaceBoarder   = (*Store)(nil)
	_ store.ContestRanker    = (*Store)(nil)
	_ store.ContestEnder     = (*Store)(nil)
	_ store.TakeoverNotifier = (*Store)(nil)
	_ store.Moderator        = (*Store)(nil)
)

// Store is the database. It is safe for concurrent use.
type Store struct {
	path  string
	write *sql.DB // exactly one connection, used only by the writer goroutine
	// moveStmt runs a move's insert and a fold on that connection directly.
	moveStmt *moveStatement
	// mlog is the moves this process logged and has not folded into
	// their games (movelog.go); the writer's goroutine's alone.
	mlog *moveLog
	read *sql.DB // read-only pool
	w    *writer
	// The accounts' methods (store.Accounts and UpsertPlayer), shared
	// with package postgres.
	accounts.Methods[*sql.Tx]
	// linker is the accounts' methods on writes that fold the move log
	// first, for Link: a merge compares and ends the accounts' games.
	linker accounts.Methods[*sql.Tx]
	// The moderation's methods (store.Moderator), shared likewise.
	moderation.Moderator[*sql.Tx]
	log     *slog.Logger
	obs     store.Observer
	newSeed func() uint64 // replaced in tests
	// node names this open store in the games it claims (claims.go).
	node      string
	takeovers takeovers
	merges    callbacks.Set[func(gone store.AccountID)] // OnAccountsMerged's

	stopCheckpoints chan struct{}
	checkpointsDone chan struct{}

	// ranks answers PlayerRank from memory (ranks.go); checkOthers
	// tells it of other processes' writes.
	ranks       *ranks.Index
	dataVersion atomic.Int64 // the writer's connection's PRAGMA data_version when last read
	// openedVersion is data_version as the store opened, after folding
	// the log; othersCommitted is set once it has changed (claims.go).
	openedVersion          int64
	othersCommitted        atomic.Bool
	othersDue              atomic.Int64 // unix ns: when the writer next reads it
	stopOthers, othersDone chan struct{}

	// marked are the games moved since they were offered to the bests
	// (bests.go).
	marked               bests.Marked
	stopBests, bestsDone chan struct{}

	closeOnce sync.Once
	closeErr  error
}

// dsn builds the connection string. Every setting that must hold for every
// connection is in the DSN, because database/sql opens connections on its
// own and a PRAGMA run once reaches only one of them.
func dsn(path string, readOnly bool, synchronous string) string {
	q := url.Values{}
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", synchronous)
	q.Set("_busy_timeout", "10000") // ms; the writer also retries, see writer.begin
	q.Set("_foreign_keys", "on")
	// Keep prepared statements per connection: preparing dominated the
	// cost of a small write.
	q.Set("_stmt_cache_size", "64")
	if readOnly {
		q.Set("_query_only", "true")
		q.Set("_txlock", "deferred")
	} else {
		// BEGIN IMMEDIATE takes the write lock up front, so a transaction
		// never fails half-way with SQLITE_BUSY when upgrading to a writer.
		q.Set("_txlock", "immediate")
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// Open opens (creating if needed) dataDir/ssh2048.db and applies pending
// migrations. A database migrated by a newer binary is refused with
// store.ErrSchemaTooNew. Close flushes pending writes.
func Open(ctx context.Context, dataDir string, opts ...Option) (*Store, error) {
	o := options{log: slog.Default(), synchronous: string(PowerSafe), obs: store.NopObserver{}, bestsEvery: bestsEvery}
	for _, opt := range opts {
		opt(&o)
	}
	if o.obs == nil {
		o.obs = store.NopObserver{}
	}
	if d := Durability(o.synchronous); d != PowerSafe && d != CrashSafe {
		return nil, fmt.Errorf("open store: %w: durability %q", store.ErrInvalid, d)
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	path := filepath.Join(dataDir, FileName)
	if err := secureFiles(path); err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	moves := new(moveStatement)
	write := sql.OpenDB(writerConnector{dsn: dsn(path, false, o.synchronous), driver: &sqlite3.SQLiteDriver{
		ConnectHook: func(c *sqlite3.SQLiteConn) error {
			// Checkpoints run in the background (see checkpointLoop), not
			// inside whichever commit happens to fill the WAL; a WAL that
			// a burst grew is cut back to 32 MiB when it restarts.
			if _, err := c.Exec("PRAGMA wal_autocheckpoint = 0; PRAGMA journal_size_limit = 33554432", nil); err != nil {
				return err
			}
			moves.connected(c)
			return nil
		}}})
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	write.SetConnMaxLifetime(0)
	write.SetConnMaxIdleTime(0)
	if err := migrate(ctx, write, path+".migrate-lock", migrations.SQLite, o.log); err != nil {
		write.Close()
		return nil, fmt.Errorf("open store %s: %w", path, corrupt(err))
	}
	if err := replayLog(ctx, write); err != nil {
		write.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	if err := offerGamesInPlay(ctx, write); err != nil {
		write.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	read, err := sql.Open("sqlite3", dsn(path, true, o.synchronous))
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	n := max(4, 2*runtime.GOMAXPROCS(0))
	read.SetMaxOpenConns(n)
	read.SetMaxIdleConns(n)
	if err := read.PingContext(ctx); err != nil {
		write.Close()
		read.Close()
		return nil, fmt.Errorf("open store %s: %w", path, corrupt(err))
	}
	s := &Store{path: path, write: write, moveStmt: moves, mlog: newMoveLog(moves), read: read, log: o.log, obs: o.obs, newSeed: store.NewSeed, node: newNode(),
		stopCheckpoints: make(chan struct{}), checkpointsDone: make(chan struct{})}
	s.ranks = ranks.New(s.loadBoard)
	var version int64
	if err := write.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&version); err != nil {
		write.Close()
		read.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	s.dataVersion.Store(version)
	s.openedVersion = version
	s.stopOthers, s.othersDone = make(chan struct{}), make(chan struct{})
	s.stopBests, s.bestsDone = make(chan struct{}), make(chan struct{})
	s.w = newWriter(write, s.mlog, o.log, o.obs, s.othersAfterGroup)
	changed := func(c accounts.Change) {
		s.ranks.AccountChanged(int64(c.Account), int64(c.Merged), c.Name)
		if c.Merged != 0 {
			s.merges.Each(func(fn func(store.AccountID)) { fn(c.Merged) })
		}
	}
	s.Methods = accounts.New(s.w.Do, func(tx *sql.Tx) accounts.Querier { return sqlQuerier{tx} }, sqlQuerier{read}, changed)
	s.linker = accounts.New(s.doFolded, func(tx *sql.Tx) accounts.Querier { return sqlQuerier{tx} }, sqlQuerier{read}, changed)
	s.Moderator = s.newModeration()
	go s.checkpointLoop()
	go s.watchOthers()
	go s.offerBestsLoop(o.bestsEvery)
	return s, nil
}

// writerConnector opens the writer's connections with a connect hook of
// its store's: it turns automatic checkpoints off (a per-connection
// setting, so it cannot be a PRAGMA run once on the pool) and hands the
// connection to the store's moveStatement.
type writerConnector struct {
	dsn    string
	driver *sqlite3.SQLiteDriver
}

func (c writerConnector) Connect(context.Context) (driver.Conn, error) { return c.driver.Open(c.dsn) }

func (c writerConnector) Driver() driver.Driver { return c.driver }

// checkpointEvery is how often the WAL is copied back into the database.
// In SQLite's default, the commit that fills the WAL to 1000 pages does
// the checkpoint (and its fsync) itself, stalling every move queued behind
// it; here a PASSIVE checkpoint runs on a read connection beside the
// writer, which carries on appending to the WAL meanwhile.
//
// That alone never lets the WAL start again from its beginning while
// moves keep coming: SQLite rewinds it only at the start of a write
// transaction that finds every frame copied back, and with the writer
// appending throughout, the copy is always a few commits behind. Under
// steady play the WAL then grew for as long as the players played, and
// every commit's fsync extended the file. So after each
// checkpoint here, the writer copies the few frames committed meanwhile
// itself, between two groups (writer.catchUp), and its next group starts
// the WAL over.
const checkpointEvery = 200 * time.Millisecond

func (s *Store) checkpointLoop() {
	defer close(s.checkpointsDone)
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	for {
		select {
		case <-s.stopCheckpoints:
			return
		case <-t.C:
			if frames, err := checkpoint(s.read); err != nil {
				s.log.Warn("db: checkpoint failed", "err", err)
				s.obs.Failed("checkpoint")
			} else if frames > 0 {
				s.w.catchUp.Store(true)
			}
		}
	}
}

// checkpoint runs a PASSIVE checkpoint on one of db's connections and
// returns the frames the WAL holds.
func checkpoint(db *sql.DB) (frames int, err error) {
	var busy, done int
	err = db.QueryRow(`PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &done)
	return frames, err
}

// Close waits for every pending write to commit, then closes the database.
// Writes after Close fail with store.ErrClosed. Closing twice is harmless.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		close(s.stopBests)
		<-s.bestsDone
		if err := s.w.do(context.Background(), func(ctx context.Context, tx *sql.Tx, _ int64) error {
			return s.mlog.foldAll(ctx, tx)
		}); err != nil {
			s.log.Warn("db: folding the move log failed; the next open replays it", "err", err)
		}
		if err := s.offerMarkedBests(context.Background()); err != nil {
			s.log.Warn("db: offering games to the bests failed", "err", err)
		}
		s.w.close()
		s.moveStmt.close()
		s.stopTakeovers()
		close(s.stopCheckpoints)
		<-s.checkpointsDone
		close(s.stopOthers)
		<-s.othersDone
		// Leave a small WAL and fresh planner statistics behind.
		if _, err := s.write.Exec(`PRAGMA wal_checkpoint(TRUNCATE); PRAGMA optimize`); err != nil {
			s.log.Warn("db: final checkpoint failed", "err", err)
		}
		s.closeErr = errors.Join(s.read.Close(), s.write.Close())
	})
	return s.closeErr
}

// Path returns the database file's path.
func (s *Store) Path() string { return s.path }

func micros(t time.Time) int64 { return t.UnixMicro() }

func fromMicros(us int64) time.Time { return time.UnixMicro(us) }

// Seeds are uint64; SQLite stores signed 64-bit integers. The bits are
// kept as they are: values above MaxInt64 are stored as negatives.
func seedToDB(seed uint64) int64 { return int64(seed) }

func seedFromDB(v int64) uint64 { return uint64(v) }
