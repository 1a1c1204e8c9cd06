// Package migrations holds the numbered SQL migrations of the ssh2048
// database, embedded in the binary. Files are named NNNNN_what.sql and are
// applied in order by package db at startup (goose v3 provider API). A
// migration, once released, is never edited: change the schema with a new
// file.
package migrations

import "embed"

// FS holds the migration files at its root.
//
//go:embed *.sql
var FS embed.FS
