package store

import (
	"strconv"
	"time"
)

// What both stores share of their moderation rows: the columns they read
// and how they scan them (a *sql.Row and a pgx.Row both have Scan), and
// how the audit log names a ban.

// Scanner is a row to scan: database/sql's and pgx's alike.
type Scanner interface{ Scan(dest ...any) error }

// BanColumns are the columns ScanBan reads, of bans b left-joined to
// players p.
const BanColumns = `b.id, b.kind, b.target, coalesce(b.player_id, 0), coalesce(p.name, ''), b.reason, b.show_reason, b.created_by, b.created_at, b.expires_at`

// PlayerColumns are the columns ScanPlayer reads, of players p.
const PlayerColumns = `p.id, p.fingerprint, p.key_type, p.name, p.first_seen, p.last_seen`

// ScanBan scans BanColumns, then more, into b.
func ScanBan(sc Scanner, b *Ban, more ...any) error {
	var kind string
	var at, until int64
	if err := sc.Scan(append([]any{&b.ID, &kind, &b.Target, &b.PlayerID, &b.Name, &b.Reason, &b.ShowReason, &b.By, &at, &until}, more...)...); err != nil {
		return err
	}
	b.Kind, b.At = BanKind(kind), time.UnixMicro(at)
	if until != 0 {
		b.Until = time.UnixMicro(until)
	}
	return nil
}

// ScanPlayer scans PlayerColumns, then more, into p.
func ScanPlayer(sc Scanner, p *Player, more ...any) error {
	var first, last int64
	if err := sc.Scan(append([]any{&p.ID, &p.Fingerprint, &p.KeyType, &p.Name, &first, &last}, more...)...); err != nil {
		return err
	}
	p.FirstSeen, p.LastSeen = time.UnixMicro(first), time.UnixMicro(last)
	return nil
}

// ScanPlayerInfo scans PlayerColumns and then the games, admin, hidden,
// banned and name_locked_until columns into in.
func ScanPlayerInfo(sc Scanner, in *PlayerInfo) error {
	var lock int64
	if err := ScanPlayer(sc, &in.Player, &in.Games, &in.Admin, &in.Hidden, &in.Banned, &lock); err != nil {
		return err
	}
	if lock != 0 {
		in.NameLocked = time.UnixMicro(lock)
	}
	return nil
}

// ScanAudit scans id, at, actor, actor_id (0 for none), action, target,
// reason and detail into e.
func ScanAudit(sc Scanner, e *AuditEntry) error {
	var at int64
	if err := sc.Scan(&e.ID, &at, &e.Actor, &e.ActorID, &e.Action, &e.Target, &e.Reason, &e.Detail); err != nil {
		return err
	}
	e.At = time.UnixMicro(at)
	return nil
}

// AuditColumns are the columns ScanAudit reads, of audit.
const AuditColumns = `id, at, actor, coalesce(actor_id, 0), action, target, reason, detail`

// BanTarget is how the audit log names a ban's target.
func BanTarget(kind BanKind, target string) string {
	if kind == BanPlayer {
		return "player #" + target
	}
	return string(kind) + " " + target
}

// PlayerTarget is how the audit log names a player.
func PlayerTarget(id int64) string { return "player #" + strconv.FormatInt(id, 10) }

// BanDetail is the audit log's detail of a ban: how long it holds.
func BanDetail(b BanSpec) string {
	d := "until lifted"
	if !b.Until.IsZero() {
		d = "until " + b.Until.UTC().Format(time.RFC3339)
	}
	if b.ShowReason {
		d += ", reason shown"
	}
	return d
}
