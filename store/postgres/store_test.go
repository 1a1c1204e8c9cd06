package postgres_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/migrations"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/postgres"
	"github.com/ssh2048/ssh2048/store/postgres/pgtest"
	"github.com/ssh2048/ssh2048/store/storetest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

var quiet = slog.New(slog.DiscardHandler)

// openStore opens a store on url with opts, closed when the test ends.
func openStore(tb testing.TB, url string, opts ...postgres.Option) *postgres.Store {
	tb.Helper()
	s, err := postgres.Open(context.Background(), url, append([]postgres.Option{postgres.WithLogger(quiet)}, opts...)...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// openTraced opens a store on a fresh database whose round trips trace
// sees (WithReadTracer, WithWriterTracer), with nothing of the store's
// own among them: no lease renewal, no offer of the bests.
func openTraced(t *testing.T, trace postgres.Option) *postgres.Store {
	t.Helper()
	return openStore(t, pgtest.Database(t), trace, postgres.WithLease(time.Hour), postgres.WithRanksEvery(time.Hour))
}

// newPlayer makes the account of a new key on s, named name.
func newPlayer(t *testing.T, s *postgres.Store, name string) store.Player {
	t.Helper()
	p, err := s.UpsertPlayer(context.Background(), "SHA256:"+name, "ssh-ed25519", name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// openGame opens player's 4×4 game to play on s, as a login does.
func openGame(t *testing.T, s *postgres.Store, player int64) *store.SavedGame {
	t.Helper()
	g, err := s.LoadOrCreateGame(context.Background(), player, 4, store.KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestStore runs the stores' conformance suite (package storetest, which
// package sqlite runs against SQLite) against a real PostgreSQL.
func TestStore(t *testing.T) {
	storetest.Run(t, backend)
}

var backend = storetest.Backend{
	Open: func(tb testing.TB, log *slog.Logger) (storetest.Store, func() (storetest.Store, error)) {
		tb.Helper()
		url := pgtest.Database(tb)
		open := func() (storetest.Store, error) {
			s, err := postgres.Open(context.Background(), url, postgres.WithLogger(log))
			if err != nil {
				return nil, err
			}
			tb.Cleanup(func() { s.Close() })
			return s, nil
		}
		s, err := open()
		if err != nil {
			tb.Fatal(err)
		}
		return s, open
	},
	SetSeeds: func(s storetest.Store, next func() uint64) { postgres.SetNewSeed(s.(*postgres.Store), next) },
}

// TestOldGenerator: a game stored before generators were recorded still
// replays with PCG (the suite's check; the old game is made here, in SQL).
func TestOldGenerator(t *testing.T) {
	storetest.RunOldGenerator(t, backend, func(tb testing.TB, s storetest.Store, id int64, board string, maxTile int) {
		tb.Helper()
		if _, err := s.(*postgres.Store).Pool().Exec(context.Background(), `UPDATE games SET generator = 1, board = $1, max_tile = $2 WHERE id = $3`, board, maxTile, id); err != nil {
			tb.Fatal(err)
		}
	})
}

// migratedBy opens a store on a fresh database, lets write fill it, and
// closes it: what a migration's Down then starts from, with goose on the
// database.
func migratedBy(t *testing.T, write func(s storetest.Store)) (*sql.DB, *goose.Provider) {
	t.Helper()
	url := pgtest.Database(t)
	s, err := postgres.Open(context.Background(), url, postgres.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	write(s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	db := stdlib.OpenDBFromPool(pool)
	t.Cleanup(func() { db.Close() })
	p, err := goose.NewProvider(goose.DialectPostgres, db, migrations.Postgres, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	return db, p
}

// TestBucketsMigrationDown: migration 00014 dropped the rank buckets;
// its Down puts them back counting every best, with their triggers
// (storetest.CheckBucketsDown).
func TestBucketsMigrationDown(t *testing.T) {
	db, p := migratedBy(t, func(s storetest.Store) { storetest.SpreadScores(t, s) })
	storetest.CheckBucketsDown(t, db, p)
}

// TestMergedAccountsMigration: migration 00022 adds merged_accounts,
// which a merge writes; its Down drops it (storetest.CheckMergedAccountsDown).
func TestMergedAccountsMigration(t *testing.T) {
	var kept, gone store.AccountID
	db, p := migratedBy(t, func(s storetest.Store) { kept, gone = storetest.MergeOneAccount(t, s) })
	storetest.CheckMergedAccountsDown(t, db, p, kept, gone)
}

// TestNodesStartingTogetherMigrateOnce: four stores open one empty
// database at once, as nodes starting together do; goose's advisory lock
// lets one migrate, the others find nothing to do.
func TestNodesStartingTogetherMigrateOnce(t *testing.T) {
	url := pgtest.Database(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			s, err := postgres.Open(context.Background(), url, postgres.WithLogger(quiet))
			if err == nil {
				s.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("node %d: %v", i, err)
		}
	}
	s := openStore(t, url)
	var applied int
	if err := s.Pool().QueryRow(context.Background(), `SELECT count(*) FROM goose_db_version WHERE version_id > 0`).Scan(&applied); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir("../../migrations/postgres"); applied != len(entries) {
		t.Errorf("%d migrations recorded, want each of the %d once", applied, len(entries))
	}
}

func TestNewerSchemaIsRefused(t *testing.T) {
	url := pgtest.Database(t)
	s := openStore(t, url)
	if _, err := s.Pool().Exec(context.Background(), `INSERT INTO goose_db_version (version_id, is_applied) VALUES (9999, true)`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err := postgres.Open(context.Background(), url, postgres.WithLogger(quiet))
	if !errors.Is(err, store.ErrSchemaTooNew) {
		t.Fatalf("Open of a newer database: err = %v, want ErrSchemaTooNew", err)
	}
}

// TestUnreachableServerIsAClearError: nothing listens at the address: Open
// fails at once, naming what it could not reach.
func TestUnreachableServerIsAClearError(t *testing.T) {
	addr := pgtest.Shared(t).Addr()
	host := addr[:strings.LastIndex(addr, ":")]
	url := fmt.Sprintf("postgres://postgres@%s:1/ssh2048?sslmode=disable", host)
	_, err := postgres.Open(context.Background(), url, postgres.WithLogger(quiet))
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1/ssh2048") || !strings.Contains(err.Error(), "cannot connect") {
		t.Fatalf("err = %v, want one naming 127.0.0.1:1/ssh2048 and saying it cannot connect", err)
	}
	t.Logf("the error reads: %v", err)
}

// TestFailedWriteDoesNotSinkItsGroup: a job that fails after writing is
// undone, alone; the jobs committed with it in a group stay.
func TestFailedWriteDoesNotSinkItsGroup(t *testing.T) {
	s := openStore(t, pgtest.Database(t))
	ctx := context.Background()
	boom := errors.New("boom")
	const n = 60
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			errs[i] = postgres.Write(s, ctx, func(ctx context.Context, tx pgx.Tx, now int64) error {
				_, err := tx.Exec(ctx, `INSERT INTO players (fingerprint, key_type, name, first_seen, last_seen) VALUES ($1, 'k', 'n', $2, $2)`,
					fmt.Sprintf("fp-%d", i), now)
				if err != nil {
					return err
				}
				if i%3 == 0 {
					return boom // after a write: the group must not keep it
				}
				return nil
			})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if want := i%3 == 0; want != errors.Is(err, boom) || !want && err != nil {
			t.Errorf("job %d: err = %v", i, err)
		}
		var stored int
		if err := s.Pool().QueryRow(ctx, `SELECT count(*) FROM players WHERE fingerprint = $1`, fmt.Sprintf("fp-%d", i)).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		if (i%3 == 0) != (stored == 0) {
			t.Errorf("job %d: %d rows stored", i, stored)
		}
	}
}

// countingObserver counts what a store tells its store.Observer.
type countingObserver struct {
	mu                               sync.Mutex
	commits, committed, waits, moves int
	failed                           []string
}

func (o *countingObserver) Committed(writes int, _ time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.commits++
	o.committed += writes
}

func (o *countingObserver) Waited(time.Duration) { o.mu.Lock(); o.waits++; o.mu.Unlock() }
func (o *countingObserver) MoveStored()          { o.mu.Lock(); o.moves++; o.mu.Unlock() }
func (o *countingObserver) Failed(op string) {
	o.mu.Lock()
	o.failed = append(o.failed, op)
	o.mu.Unlock()
}

// TestObserverSeesTheWriter: the operator's metrics on PostgreSQL count
// what they count on SQLite: every write waited for, every group commit
// and its writes, every stored move, and a write that fails.
func TestObserverSeesTheWriter(t *testing.T) {
	obs := &countingObserver{}
	s, err := postgres.Open(context.Background(), pgtest.Database(t), postgres.WithLogger(quiet), postgres.WithObserver(obs))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	p, err := s.UpsertPlayer(ctx, "SHA256:obs-fingerprint", "ssh-ed25519", "obs")
	if err != nil {
		t.Fatal(err)
	}
	g, err := s.LoadOrCreateGame(ctx, p.ID, 4, store.KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	const moves = 5
	for range moves {
		seq := g.Engine.Moves()
		var d engine.Direction
		for _, d = range []engine.Direction{engine.Left, engine.Up, engine.Right, engine.Down} {
			b := g.Engine.Board()
			if _, moved := b.Move(d); moved {
				break
			}
		}
		g.Engine.Move(d)
		if err := s.AppendMove(ctx, g.ID, seq, d, store.StateOf(g.Engine)); err != nil {
			t.Fatal(err)
		}
	}
	boom := errors.New("boom")
	if err := postgres.Write(s, ctx, func(ctx context.Context, tx pgx.Tx, now int64) error {
		_, err := tx.Exec(ctx, `SELECT no_such_column FROM players`)
		return errors.Join(boom, err)
	}); err == nil {
		t.Fatal("a failing write succeeded")
	}

	obs.mu.Lock()
	defer obs.mu.Unlock()
	if obs.moves != moves {
		t.Errorf("MoveStored %d times, want %d", obs.moves, moves)
	}
	// The player, the game and the moves at least, each waited for and
	// each in a committed group; the failing write waited but committed
	// nothing.
	if want := moves + 2; obs.committed < want || obs.waits < want+1 || obs.commits == 0 || obs.commits > obs.committed {
		t.Errorf("%d commits of %d writes, %d waits; want at least %d writes and %d waits", obs.commits, obs.committed, obs.waits, want, want+1)
	}
	if !slices.Contains(obs.failed, "write") {
		t.Errorf("failures %q, want a write", obs.failed)
	}
}
