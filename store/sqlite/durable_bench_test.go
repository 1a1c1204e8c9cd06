package sqlite

import (
	"testing"

	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/storetest"
)

// BenchmarkDurableWrites is the durable write path alone (see
// storetest.BenchDurableWrites) with synchronous=FULL (PowerSafe) on a real
// file.
//
//	go test ./store/sqlite -run '^$' -bench DurableWrites -benchtime 40000x
func BenchmarkDurableWrites(b *testing.B) {
	storetest.BenchDurableWrites(b, func(b *testing.B) (store.Store, func() int64) {
		s := openStore(b, WithDurability(PowerSafe))
		return s, s.w.Commits
	})
}
