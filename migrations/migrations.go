// Package migrations holds the numbered SQL migrations of the ssh2048
// database, embedded in the binary, one directory per SQL dialect:
// sqlite/ for the default store (package sqlite) and postgres/ for the shared
// store of several nodes (package postgres). The two directories hold the
// same numbers and names, so a change to one is visibly a change to the
// other (the test in this package enforces it); a step that one dialect
// does not need is a file that says why and changes nothing.
//
// Files are named NNNNN_what.sql and applied in order at startup (goose
// v3 provider API), which reads a migration's version from its name: a
// database migrated while the SQLite files sat at this package's root
// opens as before. A migration, once released, is never edited: change
// the schema with a new file in both directories.
package migrations

import (
	"embed"
	"io/fs"
)

//go:embed sqlite/*.sql postgres/*.sql
var files embed.FS

// SQLite and Postgres hold each dialect's migration files at their root.
var (
	SQLite   = sub("sqlite")
	Postgres = sub("postgres")
)

func sub(dir string) fs.FS {
	f, err := fs.Sub(files, dir)
	if err != nil {
		panic(err) // the directory is embedded above
	}
	return f
}
