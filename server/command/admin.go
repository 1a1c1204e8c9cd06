package command

import (
	"log/slog"
	"net/netip"

	"github.com/ssh2048/ssh2048/moderation"
	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/wire"
)

// adminName is the admin commands' name. It is not in the table, so
// that neither help nor a non-admin can tell it exists.
const adminName = "admin"

// runAdmin is `admin …`, the admin commands of package moderation, for
// admins only. Anyone else gets what any unknown command gets, the same
// line and status, so that trying it tells them nothing; the attempt is
// logged, within the limited lines' budget, as a client can make it at
// will.
func (t *Table) runAdmin(sess *session.Session, args []string) int {
	ms, ok := t.games.Store().(store.Moderator)
	admin := false
	if ok && !sess.Player.Guest {
		var err error
		session.OnFreshStack(func() { // a database read (see session.OnFreshStack)
			admin, err = ms.IsAdmin(sess.Context(), sess.Player.ID)
		})
		if err != nil {
			t.log.Error("admin: is the player an admin", "err", err, "player", sess.Player.ID)
			admin = false
		}
	}
	if !admin {
		t.cfg.Lines.Log(t.log, slog.LevelWarn, "admin command refused to a non-admin",
			"key", sess.Player.Fingerprint, "player", sess.Player.ID, "remote", sess.RemoteAddr().String())
		unknownCommand(sess, args[0])
		return wire.ExitUsage
	}
	env := moderation.Env{
		Store: ms, Out: sess, Err: sess.Stderr(), Log: t.log,
		Actor: store.Action{ActorID: sess.Player.ID, Actor: sess.Player.Name + " (" + sess.Player.Fingerprint + ")"},
		Changed: func(action string) {
			t.log.Info("admin action", "action", action, "admin", sess.Player.ID, "key", sess.Player.Fingerprint)
			if t.cfg.Bans != nil {
				if err := t.cfg.Bans.Reload(sess.Context()); err != nil {
					t.cfg.Bans.Refresh() // the next try is the list's own
				}
			}
			if action == "hide" || action == "unhide" {
				t.games.HiddenChanged()
			}
			if t.cfg.AdminAction != nil {
				t.cfg.AdminAction(action)
			}
		},
	}
	if ap, err := netip.ParseAddrPort(sess.RemoteAddr().String()); err == nil {
		env.Addr = ap.Addr().Unmap()
	}
	var code int
	session.OnFreshStack(func() { code = moderation.Run(sess.Context(), env, args[1:]) })
	return code
}
