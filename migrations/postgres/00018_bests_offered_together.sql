-- +goose Up
-- The twin of sqlite/00016: a move no longer offers its game to the
-- player's best in its own transaction. Package postgres offers the games
-- moved since it last did, together, before the node reads player_bests
-- and before it tells the other nodes that its ranks changed
-- (store/postgres/bests.go), and every game in play when a node opens the
-- database. A game's end and a change of its kind still offer it here,
-- at once. The rule (a better score, or the same score reached earlier,
-- hidden games passed over) is 00011's.
DROP TRIGGER games_offer_best ON games;
CREATE TRIGGER games_offer_best AFTER UPDATE OF ended_at, kind ON games
FOR EACH ROW WHEN (NEW.contest = '' AND NOT NEW.hidden AND NEW.moves > 0
  AND ((OLD.ended_at IS NULL AND NEW.ended_at IS NOT NULL) OR NEW.kind <> OLD.kind))
EXECUTE FUNCTION games_offer_best();

-- +goose Down
-- Every game in play offered first, as the code before this migration
-- expects bests that are never behind a game.
INSERT INTO player_bests (player_id, size, kind, game_id, score, reached_at)
SELECT player_id, size, kind, id, score, reached_at FROM games
WHERE ended_at IS NULL AND contest = '' AND NOT hidden AND moves > 0
ON CONFLICT (player_id, size, kind) DO UPDATE
SET game_id = excluded.game_id, score = excluded.score, reached_at = excluded.reached_at
WHERE excluded.score > player_bests.score
   OR (excluded.score = player_bests.score AND excluded.reached_at < player_bests.reached_at);
DROP TRIGGER games_offer_best ON games;
CREATE TRIGGER games_offer_best AFTER UPDATE OF score, moves, kind ON games
FOR EACH ROW WHEN (NEW.contest = '' AND NOT NEW.hidden AND NEW.moves > 0 AND (OLD.moves = 0 OR NEW.score > OLD.score OR NEW.kind <> OLD.kind))
EXECUTE FUNCTION games_offer_best();
