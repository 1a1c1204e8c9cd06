// Package postgres stores ssh2048's players and games in PostgreSQL, for
// several SSH nodes sharing one database. It implements store.Store with
// the semantics of package sqlite (the SQLite store, which stays the default
// and the reference), and shares package store's vocabulary: store.Kind, store.SavedGame,
// store.Entry, store.ErrConflict and the other sentinel errors.
//
// The same guarantees, by the same means:
//
//   - Group commit. Every write is a job for one writer goroutine per
//     node, which runs all pending jobs in one transaction and commits
//     once; AppendMove returns only after that COMMIT (synchronous_commit
//     on: the WAL is flushed), so a move is durable before it is shown. A
//     job refused before writing (a stale sequence number, an ended game)
//     does not disturb its group; a job that fails after writing makes
//     the writer roll the group back and run its jobs one transaction
//     each.
//   - A move is one statement: the guarded update of the game's snapshot
//     (the stale-writer check), which appends the move's digit to the
//     game's row, and every 64 moves a row of move_chunks (package store
//     keeps the format). The update is HOT: no index of games covers what
//     a move changes.
//   - player_bests is offered the games moved together, before the node
//     reads it and every ranksEvery (bests.go), and by a trigger when a
//     game ends; leaderboards are index walks of player_bests_rank. A
//     player's rank is answered from memory (ranks.go), and the bus tells
//     the other nodes, once the node's moves are offered, to read theirs
//     again.
//   - Schema changes are the goose migrations of migrations/postgres,
//     twins of migrations/sqlite, applied at Open under goose's Postgres
//     advisory-lock session locker, so nodes starting at once migrate once.
//
// Reads go through a pgxpool of their own; the pool reconnects by itself
// when the server comes back after a restart, and so does the writer.
package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/ssh2048/ssh2048/migrations"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/internal/accounts"
	"github.com/ssh2048/ssh2048/store/internal/bests"
	"github.com/ssh2048/ssh2048/store/internal/moderation"
	"github.com/ssh2048/ssh2048/store/internal/ranks"
)

// Option configures Open.
type Option func(*options)

type options struct {
	log   *slog.Logger
	node  string
	lease time.Duration
	obs   store.Observer
	// writerTracer sees the writer connection's round trips, and
	// readTracer the read pool's (tests).
	writerTracer, readTracer pgx.QueryTracer
	// dial, when set, makes every connection (benchmarks: one that
	// delays what it sends, for a database across a network).
	dial pgconn.DialFunc
	// ranksEvery is how often the marked games are offered to the bests
	// and the other nodes told (ranks.go); tests lengthen it.
	ranksEvery time.Duration
}

// WithLogger sets where the store logs; the default is slog.Default().
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.log = l } }

// WithObserver has the store tell obs what it does (group commits,
// waits, stored moves, failures), for the same metrics on PostgreSQL as
// on SQLite; nil is no observer.
func WithObserver(obs store.Observer) Option { return func(o *options) { o.obs = obs } }

// WithNode names this node in game_holders; the default is the host name,
// the process id and a random suffix, different at every start.
func WithNode(name string) Option { return func(o *options) { o.node = name } }

// WithLease sets how long a node's hold on a game lasts without renewal
// (DefaultLease); the node renews its games' leases three times per lease.
func WithLease(d time.Duration) Option { return func(o *options) { o.lease = d } }

// DefaultLease is how long a game stays marked as held by a node that
// stopped renewing it (it died, or lost the database).
const DefaultLease = 15 * time.Second

// The contract and the optional abilities this store has (package store
// documents each), held at compile time.
var (
	_ store.Store          = (*Store)(nil)
	_ store.BotRaceBoarder = (*Store)(nil)
	_ store.ContestRanker  = (*Store)(nil)
	_ store.ContestEnder   = (*Store)(nil)
	_ store.LiveLister     = (*Store)(nil)
	_ store.Releaser       = (*Store)(nil)
	_ store.RaceDirectory  = (*Store)(nil)
	_ store.Moderator      = (*Store)(nil)
	_ store.BanWatcher     = (*Store)(nil)
)

// Store is the PostgreSQL store. It is safe for concurrent use.
type Store struct {
	pool *pgxpool.Pool
	w    *writer
	// logins is a second writer, on a connection of its own, for what a
	// login writes (the account, the game it opens) and the other writes
	// of accounts: each is several round trips that would otherwise hold
	// up the moves queued behind them in w while many log in at once. The
	// two commit independently, as two nodes' writers do.
	logins *writer
	// The accounts' methods (store.Accounts and UpsertPlayer), shared
	// with package sqlite.
	accounts.Methods[pgx.Tx]
	// The moderation's methods (store.Moderator), shared likewise.
	moderation.Moderator[pgx.Tx]
	log     *slog.Logger
	obs     store.Observer
	newSeed func() uint64 // replaced in tests
	node    string        // this node's name in game_holders
	lease   time.Duration
	bus     *Bus
	// ranks answers PlayerRank from memory (ranks.go).
	ranks     *ranks.Index
	ranksDone chan struct{}
	// marked are the games moved since they were offered to the bests
	// (bests.go).
	marked bests.Marked

	mu    sync.Mutex
	held  map[int64]int64   // games this node claimed and has not released: token
	races map[string]string // race keys this node owns (races.go): key → race

	stop, stopped chan struct{}
	closeOnce     sync.Once
}

// readConns is the read pool's size, unless the URL sets pool_max_conns.
const readConns = 16

// writerPlanner is how the writer's connection plans: every write finds
// the few rows it changes by key, and a group's moves are a join of their
// rows with games and game_holders (appendMovesSQL). On tables that
// autovacuum has not analysed yet (a new database) or that hold many
// versions not yet vacuumed, the planner judged reading a whole table
// into a hash cheaper than probing its primary key once a row, and
// planned so for the prepared statement's every later run: each group
// then read every game and every holder. Without sequential scans and
// hash or merge joins, the plan probes the keys, whatever the statistics
// say.
var writerPlanner = map[string]string{"enable_seqscan": "off", "enable_hashjoin": "off", "enable_mergejoin": "off"}

// connectTimeout bounds the first connection: an unreachable server is a
// clear error at start, not a hang.
const connectTimeout = 10 * time.Second

// Open connects to the database at url (postgres://… or a libpq key=value
// string), applies pending migrations and starts the writer. A database
// migrated by a newer binary is refused with store.ErrSchemaTooNew.
func Open(ctx context.Context, url string, opts ...Option) (*Store, error) {
	o := options{log: slog.Default(), lease: DefaultLease, ranksEvery: ranksEvery}
	for _, opt := range opts {
		opt(&o)
	}
	if o.obs == nil {
		o.obs = store.NopObserver{}
	}
	if o.node == "" {
		host, _ := os.Hostname()
		o.node = fmt.Sprintf("%s-%d-%04x", host, os.Getpid(), store.NewSeed()&0xffff)
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("open postgres: parse the database URL: %w", err)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 || cfg.ConnConfig.ConnectTimeout > connectTimeout {
		cfg.ConnConfig.ConnectTimeout = connectTimeout
	}
	if o.dial != nil {
		cfg.ConnConfig.DialFunc = o.dial
	}
	where := fmt.Sprintf("%s:%d/%s", cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database)
	if !strings.Contains(url, "pool_max_conns") {
		// pgxpool's default is the number of cores (at least 4): reads of
		// hundreds of sessions (leaderboards, ranks) queued behind it.
		cfg.MaxConns = readConns
	}
	// The writer has a connection of its own, so that no burst of reads
	// ever delays a commit.
	wcfg := cfg.Copy()
	wcfg.MaxConns, wcfg.MinConns = 1, 1
	for k, v := range writerPlanner {
		wcfg.ConnConfig.RuntimeParams[k] = v
	}
	if o.writerTracer != nil {
		wcfg.ConnConfig.Tracer = o.writerTracer
	}
	if o.readTracer != nil {
		cfg.ConnConfig.Tracer = o.readTracer
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open postgres %s: %w", where, err)
	}
	wpool, err := pgxpool.NewWithConfig(ctx, wcfg)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("open postgres %s: %w", where, err)
	}
	lpool, err := pgxpool.NewWithConfig(ctx, wcfg)
	if err != nil {
		pool.Close()
		wpool.Close()
		return nil, fmt.Errorf("open postgres %s: %w", where, err)
	}
	pctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	if err := pool.Ping(pctx); err != nil {
		pool.Close()
		wpool.Close()
		lpool.Close()
		return nil, fmt.Errorf("open postgres %s: cannot connect: %w", where, err)
	}
	err = migrate(ctx, pool, o.log)
	if err == nil {
		err = offerGamesInPlay(ctx, pool)
	}
	if err != nil {
		pool.Close()
		wpool.Close()
		lpool.Close()
		return nil, fmt.Errorf("open postgres %s: %w", where, err)
	}
	s := &Store{pool: pool, log: o.log, obs: o.obs, newSeed: store.NewSeed, node: o.node, lease: o.lease,
		held: make(map[int64]int64), races: make(map[string]string), stop: make(chan struct{}), stopped: make(chan struct{})}
	s.w = newWriter(wpool, o.log, o.obs)
	s.logins = newWriter(lpool, o.log, o.obs)
	s.bus = newBus(cfg.ConnConfig, pool, o.log)
	s.newRanks(o.ranksEvery)
	s.Methods = accounts.New(s.logins.Do, func(tx pgx.Tx) accounts.Querier { return pgQuerier{tx} }, pgQuerier{pool},
		func(c accounts.Change) { s.ranks.AccountChanged(int64(c.Account), int64(c.Merged), c.Name) }).TellingMerges(notifyMerged)
	s.Moderator = s.newModeration()
	go s.renewLeases()
	return s, nil
}

// migrate applies the migrations of migrations.Postgres the database
// lacks, one transaction each, holding goose's advisory lock so that
// nodes starting together migrate once.
func migrate(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) error {
	conn := stdlib.OpenDBFromPool(pool)
	defer conn.Close()
	// Poll for the lock every second (goose waits 5 s between tries), for
	// up to 5 minutes: a node starting beside one that migrates waits for
	// it rather than failing.
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockTimeout(1, 300))
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	p, err := goose.NewProvider(goose.DialectPostgres, conn, migrations.Postgres,
		goose.WithDisableGlobalRegistry(true), goose.WithSessionLocker(locker))
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return upgrade(ctx, p, conn, log)
}

// upgrade refuses a schema newer than the binary, then applies what is
// pending.
func upgrade(ctx context.Context, p *goose.Provider, conn *sql.DB, log *slog.Logger) error {
	sources := p.ListSources()
	latest := sources[len(sources)-1].Version
	current, err := p.GetDBVersion(ctx)
	if err != nil {
		return fmt.Errorf("migrate: read schema version: %w", err)
	}
	if current > latest {
		return fmt.Errorf("migrate: %w: database is at version %d, this binary knows up to %d; run a newer ssh2048 or restore a backup",
			store.ErrSchemaTooNew, current, latest)
	}
	results, err := p.Up(ctx)
	if err != nil {
		return fmt.Errorf("migrate from version %d: %w", current, err)
	}
	for _, r := range results {
		log.Info("db: applied migration", "version", r.Source.Version, "file", r.Source.Path, "took", r.Duration)
	}
	return nil
}

// Close waits for every pending write to commit, then closes the pool.
// Writes after Close fail with store.ErrClosed. Closing twice is harmless.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		close(s.stop)
		<-s.stopped
		<-s.ranksDone
		if err := s.offerMarkedBests(context.Background()); err != nil {
			s.log.Warn("db: offering games to the bests on close failed", "err", err)
		}
		s.bus.close()
		s.w.close()
		s.logins.close()
		s.w.pool.Close()
		s.logins.pool.Close()
		s.pool.Close()
	})
	return nil
}

// Pool is the store's connection pool, for the parts of a node that talk
// to the same database (the event bus's LISTEN connection, tests).
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// isUnavailable reports an error that says the server could not be
// reached or went away, as opposed to a refused statement.
func isUnavailable(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		// Class 08: connection exception; 57P01-03: admin shutdown,
		// crash shutdown, cannot connect now.
		return pe.Code[:2] == "08" || pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
	}
	return pgconn.SafeToRetry(err) || errors.Is(err, context.DeadlineExceeded) || isConnectError(err)
}

func isConnectError(err error) bool {
	var ce *pgconn.ConnectError
	return errors.As(err, &ce)
}

func noRows(err error) bool { return errors.Is(err, pgx.ErrNoRows) }

// Ping reads a table, for readiness checks: it fails while the database
// is unreachable.
func (s *Store) Ping(ctx context.Context) error {
	var any bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM games)`).Scan(&any); err != nil {
		return fmt.Errorf("ping store: %w", err)
	}
	return nil
}
