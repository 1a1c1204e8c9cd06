-- +goose Up
-- The twin of sqlite/00004: which random source places a game's tiles.
ALTER TABLE games ADD COLUMN generator smallint NOT NULL DEFAULT 1 CHECK (generator IN (1, 2));

-- +goose Down
ALTER TABLE games DROP COLUMN generator;
