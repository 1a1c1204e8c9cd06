-- +goose Up
-- A move no longer offers its game to the player's best in its own
-- transaction: package sqlite offers the games moved since it last did,
-- together, before it reads player_bests and at least once a second
-- (store/sqlite/bests.go), and every game in play when it opens the
-- file. A game's end and a change of its kind still offer it here, at
-- once. The rule (a better score, or the same score reached earlier) is
-- 00011's.
-- +goose StatementBegin
DROP TRIGGER games_offer_best;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER games_offer_best AFTER UPDATE OF ended_at, kind ON games
WHEN new.contest = '' AND new.hidden = 0 AND new.moves > 0
 AND ((old.ended_at IS NULL AND new.ended_at IS NOT NULL) OR new.kind <> old.kind)
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
-- Every game in play offered first, as the code before this migration
-- expects bests that are never behind a game.
INSERT INTO player_bests (player_id, size, kind, game_id, score, reached_at)
SELECT player_id, size, kind, id, score, reached_at FROM games
WHERE ended_at IS NULL AND contest = '' AND hidden = 0 AND moves > 0
ON CONFLICT (player_id, size, kind) DO UPDATE
SET game_id = excluded.game_id, score = excluded.score, reached_at = excluded.reached_at
WHERE excluded.score > player_bests.score
   OR (excluded.score = player_bests.score AND excluded.reached_at < player_bests.reached_at);
-- +goose StatementBegin
DROP TRIGGER games_offer_best;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER games_offer_best AFTER UPDATE OF score, moves, kind ON games
WHEN new.contest = '' AND new.hidden = 0 AND new.moves > 0 AND (old.moves = 0 OR new.score > old.score OR new.kind <> old.kind)
BEGIN
    INSERT INTO player_bests (player_id, size, kind, game_id, score, reached_at)
    VALUES (new.player_id, new.size, new.kind, new.id, new.score, new.reached_at)
    ON CONFLICT (player_id, size, kind) DO UPDATE
    SET game_id = excluded.game_id, score = excluded.score, reached_at = excluded.reached_at
    WHERE excluded.score > player_bests.score
       OR (excluded.score = player_bests.score AND excluded.reached_at < player_bests.reached_at);
END;
-- +goose StatementEnd
