package sqlite

import (
	"database/sql"

	"github.com/ssh2048/ssh2048/store/internal/moderation"
)

// The writes of store.Moderator (package store/internal/moderation, the
// SQL both stores share) go through the writer like every other write:
// one IMMEDIATE transaction, so that every check they make holds until
// their change and its audit row commit together (another process on the
// file waits for the lock). Each checks first and writes after, so that
// a refusal is a reject (groupcommit.Reject) and leaves its group's other
// writes alone.

// newModeration is the store's moderation methods.
func (s *Store) newModeration() moderation.Moderator[*sql.Tx] {
	return moderation.New(s.doFolded, func(tx *sql.Tx) moderation.Querier { return sqlQuerier{tx} }, sqlQuerier{s.read},
		moderation.Config{
			Position: "instr",
			Hidden:   func(playerID, gameID int64, hide bool) { s.ranks.Hidden(playerID, gameID, hide) },
		})
}
