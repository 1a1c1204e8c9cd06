-- +goose Up
-- The AI's review of a game (package review), made once and kept: review
-- is its JSON, version the review's method (review.Version). A review of
-- another version is made again and replaces the row. Only ended games
-- are kept: a game in play grows.
CREATE TABLE game_reviews (
    game_id bigint      PRIMARY KEY REFERENCES games(id),
    version int         NOT NULL,
    review  bytea       NOT NULL,
    made_at timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE game_reviews;
