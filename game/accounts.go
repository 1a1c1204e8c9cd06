package game

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ssh2048/ssh2048/store"
)

// Accounts: what a player does with their account (docs/accounts.md),
// for the account commands. The store does the work (store.Accounts);
// the service checks what a player typed and cleans what it shows.

// ErrNoAccounts: the store keeps one player per key (it lacks
// store.Accounts), or the player is a guest, who has no account.
var ErrNoAccounts = errors.New("no accounts kept for this player")

func (s *Service) accounts(p Player) (store.Accounts, error) {
	as, ok := s.store.(store.Accounts)
	if !ok || p.Guest || p.ID == 0 {
		return nil, ErrNoAccounts
	}
	return as, nil
}

// Account returns the player's account, its name as store.DisplayName
// shows it (stored by an older version or by hand, it may hold escapes).
func (s *Service) Account(ctx context.Context, p Player) (store.Account, error) {
	as, err := s.accounts(p)
	if err != nil {
		return store.Account{}, err
	}
	a, err := as.Account(ctx, store.AccountID(p.ID))
	if err == nil {
		a.Name = store.DisplayName(a.Name, a.Fingerprint)
	}
	return a, err
}

// AccountKeys lists the keys of the player's account, oldest first, their
// texts cleaned: the comment as a name, the type and fingerprint as text.
func (s *Service) AccountKeys(ctx context.Context, p Player) ([]store.Key, error) {
	as, err := s.accounts(p)
	if err != nil {
		return nil, err
	}
	keys, err := as.AccountKeys(ctx, store.AccountID(p.ID))
	for i := range keys {
		keys[i].Comment = store.SanitizeName(keys[i].Comment)
		keys[i].KeyType = store.CleanText(keys[i].KeyType)
		keys[i].Fingerprint = store.CleanText(keys[i].Fingerprint)
	}
	return keys, err
}

// RemoveKey removes a key of the player's account (store.ErrLastKey,
// store.ErrNotFound).
func (s *Service) RemoveKey(ctx context.Context, p Player, fingerprint string) error {
	as, err := s.accounts(p)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	return as.RemoveKey(ctx, store.AccountID(p.ID), fingerprint)
}

// NewLinkCode makes a one-time code that adds another key to the
// player's account, and says when it expires.
func (s *Service) NewLinkCode(ctx context.Context, p Player) (string, time.Time, error) {
	as, err := s.accounts(p)
	if err != nil {
		return "", time.Time{}, err
	}
	code := store.NewLinkCode()
	hash, _ := store.LinkCodeHash(code)
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	expires, err := as.AddLinkCode(ctx, store.AccountID(p.ID), hash)
	return code, expires, err
}

// Link uses a link code, as typed, from the player's key with that
// fingerprint: the key's account joins the code's (store.Accounts.Link
// and its errors; what cannot be a code is store.ErrCodeWrong).
func (s *Service) Link(ctx context.Context, p Player, code, fingerprint string, merge bool) (store.LinkResult, error) {
	as, err := s.accounts(p)
	if err != nil {
		return store.LinkResult{}, err
	}
	hash, ok := store.LinkCodeHash(code)
	if !ok {
		return store.LinkResult{}, fmt.Errorf("link: %w", store.ErrCodeWrong)
	}
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	res, err := as.Link(ctx, hash, fingerprint, merge)
	if err == nil {
		res.Account.Name = store.DisplayName(res.Account.Name, res.Account.Fingerprint)
	}
	return res, err
}

// ClaimName renames the player's account to raw, once store.CheckName
// takes it (store.ErrNameInvalid, ErrNameTaken, ErrRenameTooSoon).
func (s *Service) ClaimName(ctx context.Context, p Player, raw string) (store.Account, error) {
	as, err := s.accounts(p)
	if err != nil {
		return store.Account{}, err
	}
	name, err := store.CheckName(raw)
	if err != nil {
		return store.Account{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	a, err := as.ClaimName(ctx, store.AccountID(p.ID), name)
	if err == nil {
		a.Name = store.DisplayName(a.Name, a.Fingerprint)
	}
	return a, err
}
