package postgres_test

import (
	"testing"

	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/postgres"
	"github.com/ssh2048/ssh2048/store/postgres/pgtest"
	"github.com/ssh2048/ssh2048/store/storetest"
)

// BenchmarkDurableWrites is the durable write path alone (see
// storetest.BenchDurableWrites) on a real PostgreSQL: pgtest's, with fsync
// and synchronous_commit on, PostgreSQL's defaults.
//
//	go test ./store/postgres -run '^$' -bench DurableWrites -benchtime 20000x
func BenchmarkDurableWrites(b *testing.B) {
	storetest.BenchDurableWrites(b, func(b *testing.B) (store.Store, func() int64) {
		s := openStore(b, pgtest.Database(b))
		return s, func() int64 { return postgres.Commits(s) }
	})
}
