-- +goose Up
-- The twin of sqlite/00003: a game that changes kind is offered to its
-- new kind's bests by the trigger too.
DROP TRIGGER games_offer_best ON games;
CREATE TRIGGER games_offer_best AFTER UPDATE OF score, moves, kind ON games
FOR EACH ROW WHEN (NEW.moves > 0 AND (OLD.moves = 0 OR NEW.score > OLD.score OR NEW.kind <> OLD.kind))
EXECUTE FUNCTION games_offer_best();

-- +goose Down
DROP TRIGGER games_offer_best ON games;
CREATE TRIGGER games_offer_best AFTER UPDATE OF score, moves ON games
FOR EACH ROW WHEN (NEW.moves > 0 AND (OLD.moves = 0 OR NEW.score > OLD.score))
EXECUTE FUNCTION games_offer_best();
