package command

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/wire"
)

// keysCommand is `keys` (the account's keys) and `keys remove FP`.
func keysCommand() Command {
	return Command{
		Name:    "keys",
		Args:    "[remove FINGERPRINT [--self]]",
		Summary: "your account's keys: fingerprint, when added, when last used; remove one (never the last; this session's own only with --self)",
		run:     (*Table).runKeys,
	}
}

func (t *Table) runKeys(sess *session.Session, fs *commandFlags, args []string) int {
	self := fs.Bool("self", false, "allow removing the key of this session")
	words, code, ok := argAmidFlags(fs, args)
	switch {
	case !ok:
		return code
	case len(words) == 0 && !*self:
		return t.listKeys(sess)
	case len(words) == 0 || words[0] != "remove":
		return fs.mistake("want nothing, or remove FINGERPRINT")
	}
	// The fingerprint may follow its flag: `keys remove --self FP`.
	words, code, ok = argAmidFlags(fs, words[1:])
	if !ok {
		return code
	}
	if len(words) != 1 || words[0] == "" {
		return fs.mistake("remove takes one FINGERPRINT, as `keys` lists it")
	}
	fp := words[0]
	if !strings.HasPrefix(fp, "SHA256:") {
		fp = "SHA256:" + fp
	}
	// What the player typed, quoted (escaped, cut short) where it is not
	// one of the account's fingerprints; once it matched one, as is.
	shown := fmt.Sprintf("%.80q", fp)
	if fp == sess.Key() && !*self {
		fmt.Fprintf(sess.Stderr(), "keys: %s is the key of this session; to remove it anyway, add --self.\n", shown)
		return wire.ExitRefused
	}
	ctx, cancel := context.WithTimeout(sess.Context(), readTimeout)
	defer cancel()
	switch err := t.games.RemoveKey(ctx, sess.Player, fp); {
	case err == nil:
		fmt.Fprintf(sess, "Removed %s from your account.\n", fp)
		return wire.ExitOK
	case errors.Is(err, store.ErrLastKey):
		fmt.Fprintf(sess.Stderr(), "keys: %s is your account's last key; add another (link) before removing it.\n", shown)
		return wire.ExitRefused
	case errors.Is(err, store.ErrNotFound):
		fmt.Fprintf(sess.Stderr(), "keys: %s is not a key of your account; `keys` lists them.\n", shown)
		return wire.ExitNotFound
	default:
		return t.accountError(sess, "keys", err)
	}
}

func (t *Table) listKeys(sess *session.Session) int {
	ctx, cancel := context.WithTimeout(sess.Context(), readTimeout)
	defer cancel()
	keys, err := t.games.AccountKeys(ctx, sess.Player)
	if err != nil {
		return t.accountError(sess, "keys", err)
	}
	const day, minute = "2006-01-02", "2006-01-02 15:04"
	this := sess.Key()
	// A table: the key types padded to the longest, so that the dates
	// line up (fingerprints are all one length).
	typeWidth := 0
	for _, k := range keys {
		typeWidth = max(typeWidth, len(k.KeyType))
	}
	for _, k := range keys {
		line := fmt.Sprintf("%s  %-*s  added %s  last used %s UTC", k.Fingerprint, typeWidth, k.KeyType, k.Added.UTC().Format(day), k.LastUsed.UTC().Format(minute))
		if k.Comment != "" {
			line += "  " + k.Comment
		}
		if k.Fingerprint == this {
			line += "  (this key)"
		}
		fmt.Fprintln(sess, line)
	}
	return wire.ExitOK
}
