-- +goose Up
-- Keep each player's best current inside SQLite: every move updates its
-- game's score and move count, and this trigger offers the game to
-- player_bests in the same statement, instead of a second round trip from
-- Go per move. A game becomes a best candidate on its first move and
-- again whenever its score grows; it replaces the best when it beats it
-- (a higher score, or the same score reached earlier).
-- +goose StatementBegin
CREATE TRIGGER games_offer_best AFTER UPDATE OF score, moves ON games
WHEN new.moves > 0 AND (old.moves = 0 OR new.score > old.score)
BEGIN
    INSERT INTO player_bests (player_id, size, kind, game_id, score, reached_at)
    VALUES (new.player_id, new.size, new.kind, new.id, new.score, new.reached_at)
    ON CONFLICT (player_id, size, kind) DO UPDATE
    SET game_id = excluded.game_id, score = excluded.score, reached_at = excluded.reached_at
    WHERE excluded.score > player_bests.score
       OR (excluded.score = player_bests.score AND excluded.reached_at < player_bests.reached_at);
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER games_offer_best;
