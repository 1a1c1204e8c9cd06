// Package accounts is the SQL of store.Accounts and of a login by key,
// written once for both stores: the tables (migration 00010) and the
// statements are the same in SQLite and PostgreSQL, so each store gives
// this package its transaction or pool as a Querier (SQLite's driver is
// handed the statements with its own placeholders, see Placeholders)
// and runs these functions inside its group-commit writer.
//
// Every write here reads and checks before it writes, so that what it
// refuses it refuses with groupcommit.Reject before anything is written
// (the rest of its group goes on); the exception is lockAccounts, whose
// write changes nothing.
package accounts

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/internal/groupcommit"
)

// ErrNoRows is what a Row's Scan returns when the query found nothing,
// whatever the driver's own error for it.
var ErrNoRows = errors.New("no rows")

// Row is one row of a query.
type Row interface{ Scan(dest ...any) error }

// Rows is a query's rows.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// Querier is a store's transaction or read pool; statements use $1, $2 …
// placeholders.
type Querier interface {
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	QueryRow(ctx context.Context, query string, args ...any) Row
	Query(ctx context.Context, query string, args ...any) (Rows, error)
}

// Placeholders rewrites $1, $2 … as SQLite's ?1, ?2 …, which bind by
// number as PostgreSQL's do.
func Placeholders(query string) string { return strings.ReplaceAll(query, "$", "?") }

func micros(d time.Duration) int64 { return d.Microseconds() }

func timeOf(us *int64) time.Time {
	if us == nil {
		return time.Time{}
	}
	return time.UnixMicro(*us)
}

// Login resolves a key to its account at a connection, in one lookup of
// the key, and records that the key was used; a key never seen makes a
// new account (store.Accounts says how it is named). An account whose
// name is from before accounts claims it on its first login (or a
// generated one, if it cannot): renamed says so.
func Login(ctx context.Context, tx Querier, now int64, fingerprint, keyType, rawName string) (p store.Player, renamed bool, err error) {
	p = store.Player{KeyType: keyType}
	var first int64
	var nameKey *string
	// One statement, the key's row and its account's by primary key: the
	// account's last_seen is its keys' latest use (lastSeen), not a
	// second write.
	err = tx.QueryRow(ctx, `UPDATE player_keys SET last_used = $1, key_type = $2 WHERE fingerprint = $3
		RETURNING player_id,
			(SELECT fingerprint FROM players p WHERE p.id = player_id),
			(SELECT name FROM players p WHERE p.id = player_id),
			(SELECT first_seen FROM players p WHERE p.id = player_id),
			(SELECT name_key FROM players p WHERE p.id = player_id)`, now, keyType, fingerprint,
	).Scan(&p.ID, &p.Fingerprint, &p.Name, &first, &nameKey)
	if errors.Is(err, ErrNoRows) {
		p, err = create(ctx, tx, now, fingerprint, keyType, rawName)
		return p, false, err
	}
	if err != nil {
		return p, false, err
	}
	p.FirstSeen, p.LastSeen = time.UnixMicro(first), time.UnixMicro(now)
	if nameKey == nil {
		old := p.Name
		name, _ := store.ProposeName(p.Name)
		p.Name, err = nameAccount(ctx, tx, now, p.ID, name)
		return p, err == nil && p.Name != old, err
	}
	return p, false, nil
}

// LastSeen is the SQL of an account's last connection, for a query of
// players p: its keys' latest use (a login writes the key's row alone),
// or before accounts, players.last_seen.
const LastSeen = `COALESCE((SELECT max(k.last_used) FROM player_keys k WHERE k.player_id = p.id), p.last_seen)`

func keyUsed(ctx context.Context, tx Querier, now int64, fingerprint, keyType string) (int64, error) {
	var id int64
	err := tx.QueryRow(ctx, `UPDATE player_keys SET last_used = $1, key_type = $2 WHERE fingerprint = $3
		RETURNING player_id`, now, keyType, fingerprint).Scan(&id)
	return id, err
}

// create makes the account of a key never seen, named after rawName if
// that can be a name and is free (three statements: the account, its
// key, its name), else a generated name. Its players.fingerprint is the
// key's, unless an account the key was removed from keeps that as its
// id: then a random one, which no key has.
func create(ctx context.Context, tx Querier, now int64, fingerprint, keyType, rawName string) (store.Player, error) {
	p := store.Player{Fingerprint: fingerprint, KeyType: keyType, FirstSeen: time.UnixMicro(now), LastSeen: time.UnixMicro(now)}
	proposed, ok := store.ProposeName(rawName)
	var key *string
	if ok {
		k := store.NameKey(proposed)
		key = &k
	}
	for _, founding := range []string{fingerprint, "account:" + store.NewLinkCode() + store.NewLinkCode()} {
		err := tx.QueryRow(ctx, `INSERT INTO players (fingerprint, key_type, name, name_key, first_seen, last_seen)
			VALUES ($1, $2, $3, $4, $5, $5) ON CONFLICT (fingerprint) DO NOTHING RETURNING id`,
			founding, keyType, proposed, key, now).Scan(&p.ID)
		if errors.Is(err, ErrNoRows) && founding == fingerprint {
			// Another node may have made this key's account meanwhile
			// (its insert held ours until it committed): use it.
			if _, err := keyUsed(ctx, tx, now, fingerprint, keyType); err == nil {
				p, _, err := Login(ctx, tx, now, fingerprint, keyType, rawName)
				return p, err
			}
			continue
		}
		if err != nil {
			return p, err
		}
		p.Fingerprint = founding
		break
	}
	if _, err := tx.Exec(ctx, `INSERT INTO player_keys (fingerprint, player_id, key_type, added_at, last_used)
		VALUES ($1, $2, $3, $4, $4)`, fingerprint, p.ID, keyType, now); err != nil {
		return p, err
	}
	if ok {
		granted, err := grant(ctx, tx, now, p.ID, proposed)
		if err != nil || granted {
			p.Name = proposed
			return p, err
		}
	}
	var err error
	p.Name, err = nameAccount(ctx, tx, now, p.ID, "")
	return p, err
}

// nameAccount gives an account name if it is free (and not ""), else a
// generated one, as its first claimed name (not a rename).
func nameAccount(ctx context.Context, tx Querier, now, id int64, name string) (string, error) {
	candidates := []string{name, store.GeneratedName(4), store.GeneratedName(4), store.GeneratedName(6), store.GeneratedName(8), store.GeneratedName(12)}
	for _, n := range candidates {
		if n == "" {
			continue
		}
		ok, err := claim(ctx, tx, now, id, n)
		if err != nil || ok {
			return n, err
		}
	}
	return "", fmt.Errorf("name player %d: every generated name was taken", id)
}

// claim makes name the account's if no other account holds its key (or
// held it within store.NameHold), releasing the account's other names;
// false if it is taken, with nothing written.
func claim(ctx context.Context, tx Querier, now, id int64, name string) (bool, error) {
	ok, err := grant(ctx, tx, now, id, name)
	if err != nil || !ok {
		return false, err
	}
	key := store.NameKey(name)
	if _, err := tx.Exec(ctx, `UPDATE player_names SET released_at = $1
		WHERE player_id = $2 AND released_at IS NULL AND name_key <> $3`, now, id, key); err != nil {
		return false, err
	}
	_, err = tx.Exec(ctx, `UPDATE players SET name = $1, name_key = $2 WHERE id = $3`, name, key, id)
	return err == nil, err
}

// grant writes name's row for the account unless another account holds
// its key, or held it within store.NameHold: the primary key of
// player_names decides between claims at once, on any node. False, with
// nothing written, if it is taken.
func grant(ctx context.Context, tx Querier, now, id int64, name string) (bool, error) {
	var got int64
	err := tx.QueryRow(ctx, `INSERT INTO player_names (name_key, player_id, name, claimed_at, released_at)
		VALUES ($1, $2, $3, $4, NULL)
		ON CONFLICT (name_key) DO UPDATE
		SET player_id = excluded.player_id, name = excluded.name, claimed_at = excluded.claimed_at, released_at = NULL
		WHERE player_names.player_id = excluded.player_id
		   OR (player_names.released_at IS NOT NULL AND player_names.released_at < $5)
		RETURNING player_id`, store.NameKey(name), id, name, now, now-micros(store.NameHold)).Scan(&got)
	if errors.Is(err, ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// lockAccounts takes the rows of the accounts in PostgreSQL, in id order,
// so that two nodes changing one account's keys or names take turns; in
// SQLite, whose one writer runs one write at a time, it does nothing. The
// write changes nothing, so a write may still refuse after it.
func lockAccounts(ctx context.Context, tx Querier, ids ...int64) error {
	if len(ids) == 2 && ids[0] > ids[1] {
		ids[0], ids[1] = ids[1], ids[0]
	}
	for _, id := range ids {
		n, err := tx.Exec(ctx, `UPDATE players SET last_seen = last_seen WHERE id = $1`, id)
		if err != nil {
			return err
		}
		if n == 0 {
			return groupcommit.Reject(fmt.Errorf("account %d: %w", id, store.ErrNotFound))
		}
	}
	return nil
}

// Account reads an account.
func Account(ctx context.Context, q Querier, id store.AccountID) (store.Account, error) {
	a := store.Account{ID: id}
	var first, last int64
	var nameKey *string
	var renamed *int64
	var locked int64
	err := q.QueryRow(ctx, `SELECT fingerprint, name, name_key, renamed_at, name_locked_until, first_seen, `+LastSeen+`,
		(SELECT count(*) FROM player_keys k WHERE k.player_id = p.id)
		FROM players p WHERE id = $1`, int64(id),
	).Scan(&a.Fingerprint, &a.Name, &nameKey, &renamed, &locked, &first, &last, &a.Keys)
	if errors.Is(err, ErrNoRows) {
		return a, fmt.Errorf("account %d: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return a, fmt.Errorf("account %d: %w", id, err)
	}
	a.NameClaimed, a.RenamedAt = nameKey != nil, timeOf(renamed)
	if locked > 0 {
		a.NameLockedUntil = time.UnixMicro(locked)
	}
	a.FirstSeen, a.LastSeen = time.UnixMicro(first), time.UnixMicro(last)
	return a, nil
}

// Keys lists an account's keys, oldest first.
func Keys(ctx context.Context, q Querier, id store.AccountID) ([]store.Key, error) {
	rows, err := q.Query(ctx, `SELECT fingerprint, key_type, comment, added_at, last_used
		FROM player_keys WHERE player_id = $1 ORDER BY added_at, fingerprint`, int64(id))
	if err != nil {
		return nil, fmt.Errorf("keys of account %d: %w", id, err)
	}
	defer rows.Close()
	var out []store.Key
	for rows.Next() {
		var k store.Key
		var added, used int64
		if err := rows.Scan(&k.Fingerprint, &k.KeyType, &k.Comment, &added, &used); err != nil {
			return nil, fmt.Errorf("keys of account %d: %w", id, err)
		}
		k.Added, k.LastUsed = time.UnixMicro(added), time.UnixMicro(used)
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("keys of account %d: %w", id, err)
	}
	return out, nil
}

// RemoveKey removes one of an account's keys, never its last.
func RemoveKey(ctx context.Context, tx Querier, id store.AccountID, fingerprint string) error {
	if err := lockAccounts(ctx, tx, int64(id)); err != nil {
		return err
	}
	var owner int64
	err := tx.QueryRow(ctx, `SELECT player_id FROM player_keys WHERE fingerprint = $1`, fingerprint).Scan(&owner)
	if errors.Is(err, ErrNoRows) || (err == nil && owner != int64(id)) {
		return groupcommit.Reject(fmt.Errorf("key %s of account %d: %w", fingerprint, id, store.ErrNotFound))
	}
	if err != nil {
		return err
	}
	var keys int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM player_keys WHERE player_id = $1`, int64(id)).Scan(&keys); err != nil {
		return err
	}
	if keys <= 1 {
		return groupcommit.Reject(fmt.Errorf("remove key %s: %w", fingerprint, store.ErrLastKey))
	}
	_, err = tx.Exec(ctx, `DELETE FROM player_keys WHERE fingerprint = $1 AND player_id = $2`, fingerprint, int64(id))
	return err
}

// codeKept is how long a used or expired code's row is kept, so that its
// reuse is told apart from a wrong code.
const codeKept = 24 * time.Hour

// AddLinkCode stores a code's hash for the account; it returns when the
// code expires, in unix microseconds.
func AddLinkCode(ctx context.Context, tx Querier, now int64, id store.AccountID, hash []byte) (int64, error) {
	var exists int
	err := tx.QueryRow(ctx, `SELECT 1 FROM players WHERE id = $1`, int64(id)).Scan(&exists)
	if errors.Is(err, ErrNoRows) {
		return 0, groupcommit.Reject(fmt.Errorf("account %d: %w", id, store.ErrNotFound))
	}
	if err != nil {
		return 0, err
	}
	if _, err := tx.Exec(ctx, `DELETE FROM link_codes WHERE created_at < $1`, now-micros(codeKept)); err != nil {
		return 0, err
	}
	expires := now + micros(store.LinkCodeTTL)
	_, err = tx.Exec(ctx, `INSERT INTO link_codes (code_hash, player_id, created_at, expires_at)
		VALUES ($1, $2, $3, $4)`, hash, int64(id), now, expires)
	return expires, err
}

// Link uses a link code from the key with that fingerprint (see
// store.Accounts.Link).
func Link(ctx context.Context, tx Querier, now int64, hash []byte, fingerprint string, merge bool) (store.LinkResult, error) {
	var res store.LinkResult
	to, err := codeAccount(ctx, tx, now, hash)
	if err != nil {
		return res, err
	}
	var from int64
	err = tx.QueryRow(ctx, `SELECT player_id FROM player_keys WHERE fingerprint = $1`, fingerprint).Scan(&from)
	if errors.Is(err, ErrNoRows) {
		return res, groupcommit.Reject(fmt.Errorf("key %s: %w", fingerprint, store.ErrNotFound))
	}
	if err != nil {
		return res, err
	}
	if from == to {
		return res, groupcommit.Reject(fmt.Errorf("link %s: %w", fingerprint, store.ErrAlreadyLinked))
	}
	if err := lockAccounts(ctx, tx, to, from); err != nil {
		return res, err
	}
	if err := refuseBanned(ctx, tx, now, fingerprint, to, from); err != nil {
		return res, err
	}
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM games WHERE player_id = $1`, from).Scan(&res.Games); err != nil {
		return res, err
	}
	if res.Games > 0 && !merge {
		return res, groupcommit.Reject(fmt.Errorf("link %s: %d games: %w", fingerprint, res.Games, store.ErrMergeNeeded))
	}
	// Taken only now, under the accounts' locks: a code used at once from
	// two nodes is used once.
	n, err := tx.Exec(ctx, `UPDATE link_codes SET used_at = $1 WHERE code_hash = $2 AND used_at IS NULL`, now, hash)
	if err != nil {
		return res, err
	}
	if n == 0 {
		return res, groupcommit.Reject(fmt.Errorf("link: %w", store.ErrCodeUsed))
	}
	if err := mergeAccounts(ctx, tx, now, to, from); err != nil {
		return res, fmt.Errorf("merge account %d into %d: %w", from, to, err)
	}
	res.From = store.AccountID(from)
	res.Account, err = Account(ctx, tx, store.AccountID(to))
	return res, err
}

// refuseBanned rejects a link that would carry a banned key, or a banned
// account's games and keys, into another account, or a key into a
// banned account (docs/moderation.md): a ban of an account must hold on
// every key it has or gets, and a key ban must not be escaped by moving
// the key's games. Bans of the accounts' other keys follow those keys, as
// a key ban names its key.
func refuseBanned(ctx context.Context, tx Querier, now int64, fingerprint string, accounts ...int64) error {
	var banned bool
	err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM bans
		WHERE lifted_at IS NULL AND (expires_at = 0 OR expires_at > $1)
		AND ((kind = 'player' AND player_id IN ($2, $3)) OR (kind = 'key' AND target = $4)))`,
		now, accounts[0], accounts[1], fingerprint).Scan(&banned)
	if err == nil && banned {
		err = groupcommit.Reject(fmt.Errorf("link %s: %w", fingerprint, store.ErrBanned))
	}
	return err
}

// codeAccount is the account of a usable code.
func codeAccount(ctx context.Context, tx Querier, now int64, hash []byte) (int64, error) {
	var to, expires int64
	var used *int64
	err := tx.QueryRow(ctx, `SELECT player_id, expires_at, used_at FROM link_codes WHERE code_hash = $1`, hash).Scan(&to, &expires, &used)
	switch {
	case errors.Is(err, ErrNoRows):
		return 0, groupcommit.Reject(fmt.Errorf("link: %w", store.ErrCodeWrong))
	case err != nil:
		return 0, err
	case used != nil:
		return 0, groupcommit.Reject(fmt.Errorf("link: %w", store.ErrCodeUsed))
	case expires <= now:
		return 0, groupcommit.Reject(fmt.Errorf("link: %w", store.ErrCodeExpired))
	}
	return to, nil
}

// mergeAccounts moves everything account from kept into account to and
// deletes from; docs/accounts.md states the rules. A table a store adds
// that is kept by account must be moved here too.
func mergeAccounts(ctx context.Context, tx Querier, now, to, from int64) error {
	steps := []struct {
		what, query string
		args        []any
	}{
		// A game in progress of from whose size, kind and contest to has
		// one in progress too ends: to's is the one a session resumes.
		{"end games in progress", `UPDATE games SET ended_at = $1
			WHERE player_id = $2 AND ended_at IS NULL AND EXISTS (
				SELECT 1 FROM games t WHERE t.player_id = $3 AND t.ended_at IS NULL
				AND t.size = games.size AND t.kind = games.kind AND t.contest = games.contest)`,
			[]any{now, from, to}},
		// One attempt a day and size per account: where both played the
		// daily challenge, the game started first stays on the day's board
		// and the other is kept, ended, off it. Not the better one: a
		// second key's attempt, made knowing the day's tiles from the
		// first (or made first to learn them), would then count for the
		// account, a place gained by trying twice.
		{"daily games", `UPDATE games SET contest = 'merged:' || contest, ended_at = COALESCE(ended_at, $1)
			WHERE player_id IN ($2, $3) AND contest LIKE 'daily:%' AND EXISTS (
				SELECT 1 FROM games o WHERE o.player_id IN ($2, $3) AND o.player_id <> games.player_id
				AND o.size = games.size AND o.contest = games.contest
				AND (o.started_at < games.started_at OR (o.started_at = games.started_at AND o.id < games.id)))`,
			[]any{now, from, to}},
		// And the attempt that stays is over: the account has played that
		// day's tiles already, and the one kept may be in progress (a key
		// that only opened the day, merged after the other played it to
		// the end, would otherwise play on knowing every tile to come).
		{"end the daily kept", `UPDATE games SET ended_at = $1
			WHERE player_id IN ($2, $3) AND contest LIKE 'daily:%' AND ended_at IS NULL AND EXISTS (
				SELECT 1 FROM games o WHERE o.player_id IN ($2, $3)
				AND o.size = games.size AND o.contest = 'merged:' || games.contest)`,
			[]any{now, from, to}},
		// One entry per race and account: where both raced, the seat
		// taken first (the lower game ID) stays, as store.RaceResult's
		// Recorded keeps it. Not the better place, the best of two
		// attempts; nor to's, which the player chooses by the key that
		// runs link.
		{"race entries", `DELETE FROM race_entries
			WHERE player_id IN ($1, $2) AND EXISTS (
				SELECT 1 FROM race_entries o WHERE o.race_id = race_entries.race_id
				AND o.player_id IN ($1, $2) AND o.player_id <> race_entries.player_id
				AND o.game_id < race_entries.game_id)`,
			[]any{from, to}},
		{"move race entries", `UPDATE race_entries SET player_id = $1 WHERE player_id = $2`, []any{to, from}},
		{"move games", `UPDATE games SET player_id = $1 WHERE player_id = $2`, []any{to, from}},
		// Bests through player_bests, as every write keeps them:
		// from's best of a board replaces to's where it is better, then
		// from's go.
		{"merge bests", `INSERT INTO player_bests (player_id, size, kind, game_id, score, reached_at)
			SELECT CAST($1 AS bigint), size, kind, game_id, score, reached_at FROM player_bests WHERE player_id = $2 AND true
			ON CONFLICT (player_id, size, kind) DO UPDATE
			SET game_id = excluded.game_id, score = excluded.score, reached_at = excluded.reached_at
			WHERE excluded.score > player_bests.score
			   OR (excluded.score = player_bests.score AND excluded.reached_at < player_bests.reached_at)`,
			[]any{to, from}},
		{"drop bests", `DELETE FROM player_bests WHERE player_id = $1`, []any{from}},
		{"move keys", `UPDATE player_keys SET player_id = $1 WHERE player_id = $2`, []any{to, from}},
		// from's names are held for to, as a rename's old name is.
		{"hold names", `UPDATE player_names SET player_id = $1, released_at = COALESCE(released_at, $3)
			WHERE player_id = $2`, []any{to, from, now}},
		// An admin's name lock, and the day's rename, hold for the
		// account: the later of each. A player whose name an admin
		// locked would otherwise shed the lock by merging into a fresh
		// account of their own, and take back, from its held names, the
		// very name the admin took away.
		{"keep name limits", `UPDATE players SET
			name_locked_until = CASE WHEN (SELECT f.name_locked_until FROM players f WHERE f.id = $2) > name_locked_until
				THEN (SELECT f.name_locked_until FROM players f WHERE f.id = $2) ELSE name_locked_until END,
			renamed_at = CASE WHEN renamed_at IS NULL OR (SELECT f.renamed_at FROM players f WHERE f.id = $2) > renamed_at
				THEN COALESCE((SELECT f.renamed_at FROM players f WHERE f.id = $2), renamed_at) ELSE renamed_at END
			WHERE id = $1`, []any{to, from}},
		{"drop codes", `DELETE FROM link_codes WHERE player_id = $1`, []any{from}},
		// Moderation (migration 00011, docs/moderation.md). Bans and the
		// audit rows of from are to's now, lifted ones too, so that
		// admin player shows them (Link refused a ban in force).
		{"move bans", `UPDATE bans SET player_id = $1 WHERE player_id = $2`, []any{to, from}},
		{"move audit", `UPDATE audit SET player_id = $1 WHERE player_id = $2`, []any{to, from}},
		{"move audit actor", `UPDATE audit SET actor_id = $1 WHERE actor_id = $2`, []any{to, from}},
		// Admin if either was; by the keys file if either was (the file's
		// keys are the account's now).
		{"merge admins", `INSERT INTO admins (player_id, source, granted_at)
			SELECT CAST($1 AS bigint), source, granted_at FROM admins WHERE player_id = $2 AND true
			ON CONFLICT (player_id) DO UPDATE
			SET source = CASE WHEN excluded.source = 'file' THEN excluded.source ELSE admins.source END`,
			[]any{to, from}},
		{"drop admins", `DELETE FROM admins WHERE player_id = $1`, []any{from}},
		// Hidden if either was: a hidden player's games stay off the
		// boards, whichever account they are on; the games of the other
		// are hidden with the player, as HidePlayer hides them, and
		// come back with unhide.
		{"merge hidden", `UPDATE players SET hidden = $1
			WHERE id = $2 AND EXISTS (SELECT 1 FROM players f WHERE f.id = $3 AND f.hidden = $1)`,
			[]any{true, to, from}},
		{"hide games", `UPDATE games SET hidden = $1, hidden_by_player = $1
			WHERE player_id = $2 AND hidden <> $1 AND EXISTS (SELECT 1 FROM players p WHERE p.id = $2 AND p.hidden = $1)`,
			[]any{true, to}},
		{"drop hidden bests", `DELETE FROM player_bests WHERE player_id = $1
			AND EXISTS (SELECT 1 FROM games g WHERE g.id = player_bests.game_id AND g.hidden = $2)`,
			[]any{to, true}},
		// Settings (store.SettingsKeeper): to's own stay; from's fill in
		// those to never set.
		{"merge settings", `INSERT INTO player_settings (player_id, key, value, updated_at)
			SELECT CAST($1 AS bigint), key, value, updated_at FROM player_settings WHERE player_id = $2 AND true
			ON CONFLICT (player_id, key) DO NOTHING`, []any{to, from}},
		{"drop settings", `DELETE FROM player_settings WHERE player_id = $1`, []any{from}},
	}
	for _, s := range steps {
		if _, err := tx.Exec(ctx, s.query, s.args...); err != nil {
			return fmt.Errorf("%s: %w", s.what, err)
		}
	}
	if err := mergeRatings(ctx, tx, to, from); err != nil {
		return fmt.Errorf("ratings: %w", err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM players WHERE id = $1`, from); err != nil {
		return fmt.Errorf("delete account: %w", err)
	}
	// Its id lives on in links players shared (MergedInto).
	if _, err := tx.Exec(ctx, `INSERT INTO merged_accounts (account_id, joined_id, merged_at) VALUES ($1, $2, $3)`,
		from, to, now); err != nil {
		return fmt.Errorf("record the merge: %w", err)
	}
	return nil
}

// maxMergeChain bounds MergedInto's walk. Ids are never given twice, so
// merged_accounts holds no loop; the bound keeps a damaged table from
// making one read walk forever.
const maxMergeChain = 1000

// MergedInto is the account that id, an account a link merged away, is
// part of now (see store.Accounts.MergedInto): the end of its chain of
// merges, or store.ErrNotFound if no link merged id away.
func MergedInto(ctx context.Context, q Querier, id store.AccountID) (store.AccountID, error) {
	var into int64
	err := q.QueryRow(ctx, `WITH RECURSIVE chain(id, depth) AS (
			SELECT joined_id, 1 FROM merged_accounts WHERE account_id = $1
			UNION ALL
			SELECT m.joined_id, c.depth + 1 FROM merged_accounts m JOIN chain c ON m.account_id = c.id
			WHERE c.depth < $2)
		SELECT id FROM chain ORDER BY depth DESC LIMIT 1`, int64(id), maxMergeChain).Scan(&into)
	if errors.Is(err, ErrNoRows) {
		return 0, fmt.Errorf("account %d merged into: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("account %d merged into: %w", id, err)
	}
	return store.AccountID(into), nil
}

// mergeRatings keeps one race rating for the merged account: the one of
// more rated races (on a tie, the surer: lower deviation), counting both
// accounts' races. A rating is one history of results; averaging two
// would describe neither.
func mergeRatings(ctx context.Context, tx Querier, to, from int64) error {
	type rating struct {
		r, dev, vol float64
		races       int
		ok          bool
	}
	read := func(id int64) (rating, error) {
		var r rating
		err := tx.QueryRow(ctx, `SELECT rating, deviation, volatility, races FROM ratings WHERE player_id = $1`, id).
			Scan(&r.r, &r.dev, &r.vol, &r.races)
		if errors.Is(err, ErrNoRows) {
			return r, nil
		}
		r.ok = err == nil
		return r, err
	}
	rt, err := read(to)
	if err != nil {
		return err
	}
	rf, err := read(from)
	if err != nil || !rf.ok {
		return err
	}
	if !rt.ok {
		_, err := tx.Exec(ctx, `UPDATE ratings SET player_id = $1 WHERE player_id = $2`, to, from)
		return err
	}
	keep := rt
	if rf.races > rt.races || (rf.races == rt.races && rf.dev < rt.dev) {
		keep = rf
	}
	if _, err := tx.Exec(ctx, `UPDATE ratings SET rating = $1, deviation = $2, volatility = $3, races = $4
		WHERE player_id = $5`, keep.r, keep.dev, keep.vol, rt.races+rf.races, to); err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `DELETE FROM ratings WHERE player_id = $1`, from)
	return err
}

// ClaimName renames an account (see store.Accounts.ClaimName).
func ClaimName(ctx context.Context, tx Querier, now int64, id store.AccountID, name string) (store.Account, error) {
	if err := lockAccounts(ctx, tx, int64(id)); err != nil {
		return store.Account{}, err
	}
	var current string
	var renamed *int64
	var locked int64
	if err := tx.QueryRow(ctx, `SELECT name, renamed_at, name_locked_until FROM players WHERE id = $1`, int64(id)).
		Scan(&current, &renamed, &locked); err != nil {
		return store.Account{}, err
	}
	if name != current {
		// An admin's rename holds against the player's own until its
		// lock ends (docs/moderation.md).
		if locked > now {
			return store.Account{}, groupcommit.Reject(fmt.Errorf("rename account %d: %w", id, store.ErrNameLocked))
		}
		if renamed != nil && now-*renamed < micros(store.RenameEvery) {
			return store.Account{}, groupcommit.Reject(fmt.Errorf("rename account %d: %w", id, store.ErrRenameTooSoon))
		}
		ok, err := claim(ctx, tx, now, int64(id), name)
		if err != nil {
			return store.Account{}, err
		}
		if !ok {
			return store.Account{}, groupcommit.Reject(fmt.Errorf("rename account %d: %w", id, store.ErrNameTaken))
		}
		if _, err := tx.Exec(ctx, `UPDATE players SET renamed_at = $1 WHERE id = $2`, now, int64(id)); err != nil {
			return store.Account{}, err
		}
	}
	return Account(ctx, tx, id)
}

// AdminRename gives an account name (already through store.CheckName) for
// an admin (store.Moderator.Rename): through player_names, as a claim
// is, so that no two accounts hold one name or look-alikes
// (store.ErrNameTaken, nothing written), but past the player's once a
// day; lockedUntil (unix microseconds, 0: none) keeps the player's own
// claims off it. It returns the account's name before.
func AdminRename(ctx context.Context, tx Querier, now, id int64, name string, lockedUntil int64) (string, error) {
	if err := lockAccounts(ctx, tx, id); err != nil {
		return "", err
	}
	var old string
	if err := tx.QueryRow(ctx, `SELECT name FROM players WHERE id = $1`, id).Scan(&old); err != nil {
		return "", err
	}
	ok, err := claim(ctx, tx, now, id, name)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", groupcommit.Reject(fmt.Errorf("rename account %d: %w", id, store.ErrNameTaken))
	}
	_, err = tx.Exec(ctx, `UPDATE players SET name_locked_until = $1 WHERE id = $2`, lockedUntil, id)
	return old, err
}

// KeyAccount is the account of a key, made as a first login makes it
// (named after rawName if it can be) when the key has none: for a key
// named before it connects (an admin of the --admin-keys file). Unlike
// Login it does not count as a use of the key.
func KeyAccount(ctx context.Context, tx Querier, now int64, fingerprint, keyType, rawName string) (int64, error) {
	var id int64
	err := tx.QueryRow(ctx, `SELECT player_id FROM player_keys WHERE fingerprint = $1`, fingerprint).Scan(&id)
	if errors.Is(err, ErrNoRows) {
		p, err := create(ctx, tx, now, fingerprint, keyType, rawName)
		return p.ID, err
	}
	return id, err
}

// Names lists the names an account holds or held (player_names), newest
// first.
func Names(ctx context.Context, q Querier, id store.AccountID) ([]store.HeldName, error) {
	rows, err := q.Query(ctx, `SELECT name, claimed_at, released_at FROM player_names
		WHERE player_id = $1 ORDER BY claimed_at DESC, name_key`, int64(id))
	if err != nil {
		return nil, fmt.Errorf("names of account %d: %w", id, err)
	}
	defer rows.Close()
	var out []store.HeldName
	for rows.Next() {
		var n store.HeldName
		var claimed int64
		var released *int64
		if err := rows.Scan(&n.Name, &claimed, &released); err != nil {
			return nil, fmt.Errorf("names of account %d: %w", id, err)
		}
		n.Claimed, n.Released = time.UnixMicro(claimed), timeOf(released)
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("names of account %d: %w", id, err)
	}
	return out, nil
}
