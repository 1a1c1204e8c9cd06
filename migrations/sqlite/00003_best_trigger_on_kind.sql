-- +goose Up
-- The best-score rule in one place: a game that changes kind (human to
-- assisted, when the AI helps) is offered to its new kind's bests by the
-- trigger too, instead of by a copy of the rule in Go. Same rule as
-- 00002: a game replaces the best when it beats it (a higher score, or
-- the same score reached earlier).
-- +goose StatementBegin
DROP TRIGGER games_offer_best;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER games_offer_best AFTER UPDATE OF score, moves, kind ON games
WHEN new.moves > 0 AND (old.moves = 0 OR new.score > old.score OR new.kind <> old.kind)
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
-- +goose StatementBegin
DROP TRIGGER games_offer_best;
-- +goose StatementEnd
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
