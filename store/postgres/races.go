package postgres

import (
	"context"
	"fmt"
	"time"
)

// Races across nodes (migration 00008): the node that opens a race for a
// key (the public lobby's waiting race of a size, a private room) claims
// the key, and the other nodes' racers join that node's race through the
// bus (package game, racenodes.go). A claim succeeds when no node owns
// the key, when the owner's lease has run out (a dead node), or when it
// names the race the key holds now (replace: a race that can take no one
// more, which the joining node has just been told); else it returns the
// owner. The owner renews its keys' leases with its games' and releases a
// key when its race is forgotten.

// ClaimRace makes this node the owner of key with race id, unless a live
// node owns it with a race other than replace; it returns the key's race
// and owning node after the claim, which are id and this node when it
// succeeded.
func (s *Store) ClaimRace(ctx context.Context, key, id, replace string) (race, node string, err error) {
	now := time.Now()
	for range 3 {
		// The CTE's SELECT reads the snapshot the statement started with:
		// a row another node inserted meanwhile is neither updated nor
		// seen, and the next try reads it.
		err = s.pool.QueryRow(ctx, `
			WITH claim AS (
				INSERT INTO race_owners (key, race, node, lease_until) VALUES ($1, $2, $3, $4)
				ON CONFLICT (key) DO UPDATE SET race = excluded.race, node = excluded.node, lease_until = excluded.lease_until
				WHERE race_owners.lease_until < $5 OR race_owners.race = $6
				RETURNING race, node)
			SELECT race, node FROM claim
			UNION ALL SELECT race, node FROM race_owners WHERE key = $1 AND NOT EXISTS (SELECT 1 FROM claim)`,
			key, id, s.node, now.Add(s.lease).UnixMicro(), now.UnixMicro(), replace).Scan(&race, &node)
		if noRows(err) {
			continue
		}
		if err != nil {
			return "", "", fmt.Errorf("claim race %s: %w", key, err)
		}
		if race == id && node == s.node {
			s.mu.Lock()
			s.races[key] = id
			s.mu.Unlock()
		}
		return race, node, nil
	}
	return "", "", fmt.Errorf("claim race %s: the key keeps changing", key)
}

// ReleaseRace gives key up if it still holds race id of this node.
func (s *Store) ReleaseRace(ctx context.Context, key, id string) error {
	s.mu.Lock()
	if s.races[key] == id {
		delete(s.races, key)
	}
	s.mu.Unlock()
	if _, err := s.pool.Exec(ctx, `DELETE FROM race_owners WHERE key = $1 AND race = $2 AND node = $3`, key, id, s.node); err != nil {
		return fmt.Errorf("release race %s: %w", key, err)
	}
	return nil
}

// renewRaces extends the leases of the race keys this node owns; a key
// another node has since replaced is no longer renewed.
func (s *Store) renewRaces() {
	s.mu.Lock()
	keys := make([]string, 0, len(s.races))
	ids := make([]string, 0, len(s.races))
	for k, id := range s.races {
		keys, ids = append(keys, k), append(ids, id)
	}
	s.mu.Unlock()
	if len(keys) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.lease/3)
	defer cancel()
	_, err := s.pool.Exec(ctx, `
		UPDATE race_owners o SET lease_until = $1
		FROM unnest($3::text[], $4::text[]) AS k(key, race)
		WHERE o.key = k.key AND o.race = k.race AND o.node = $2`,
		time.Now().Add(s.lease).UnixMicro(), s.node, keys, ids)
	if err != nil {
		s.log.Warn("db: renew race leases", "races", len(keys), "err", err)
	}
}
