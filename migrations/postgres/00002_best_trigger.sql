-- +goose Up
-- The twin of sqlite/00002: every move's snapshot update offers the game
-- to player_bests in the same statement.
-- +goose StatementBegin
CREATE FUNCTION games_offer_best() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO player_bests (player_id, size, kind, game_id, score, reached_at)
    VALUES (NEW.player_id, NEW.size, NEW.kind, NEW.id, NEW.score, NEW.reached_at)
    ON CONFLICT (player_id, size, kind) DO UPDATE
    SET game_id = excluded.game_id, score = excluded.score, reached_at = excluded.reached_at
    WHERE excluded.score > player_bests.score
       OR (excluded.score = player_bests.score AND excluded.reached_at < player_bests.reached_at);
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER games_offer_best AFTER UPDATE OF score, moves ON games
FOR EACH ROW WHEN (NEW.moves > 0 AND (OLD.moves = 0 OR NEW.score > OLD.score))
EXECUTE FUNCTION games_offer_best();

-- +goose Down
DROP TRIGGER games_offer_best ON games;
DROP FUNCTION games_offer_best;
