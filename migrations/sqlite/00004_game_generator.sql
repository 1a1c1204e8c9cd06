-- +goose Up
-- Which random source places a game's tiles (engine.Generator): 1 is PCG,
-- the only one before this migration, so every existing game keeps it and
-- replays as before; new games record the generator they start with.
ALTER TABLE games ADD COLUMN generator INTEGER NOT NULL DEFAULT 1 CHECK (generator IN (1, 2));

-- +goose Down
ALTER TABLE games DROP COLUMN generator;
