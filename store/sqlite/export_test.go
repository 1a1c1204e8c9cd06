package sqlite

import (
	"database/sql"
	"time"
)

// What the conformance suite (package storetest, run from store_test.go)
// reaches under a SQLite store.

// SetNewSeed makes s start its free games on the seeds next returns.
func SetNewSeed(s *Store, next func() uint64) { s.newSeed = next }

// ReadDB is s's read pool.
func ReadDB(s *Store) *sql.DB { return s.read }

// WriteDB is s's write connection (the writer's: use it only between writes).
func WriteDB(s *Store) *sql.DB { return s.write }

// WithBestsEvery sets how often s offers the games moved to the bests by
// itself (bests.go): tests that set it long see what only the offers
// before a read and on Open make of them.
func WithBestsEvery(d time.Duration) Option { return func(o *options) { o.bestsEvery = d } }
