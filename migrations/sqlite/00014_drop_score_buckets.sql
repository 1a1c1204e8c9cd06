-- +goose Up
-- Ranks are kept in memory (package store/internal/ranks), loaded from
-- player_bests: no query reads score_buckets any more, and its triggers
-- were work on every write that changed a best. Down puts them back and
-- counts the bests into the table again.
DROP VIEW score_bucket_totals;
DROP TRIGGER player_bests_insert;
DROP TRIGGER player_bests_update;
DROP TRIGGER player_bests_delete;
DROP TABLE score_buckets;

-- +goose Down
CREATE TABLE score_buckets (
    size    INTEGER NOT NULL,
    kind    TEXT    NOT NULL,
    bucket  INTEGER NOT NULL,
    players INTEGER NOT NULL,
    PRIMARY KEY (size, kind, bucket)
) WITHOUT ROWID;

INSERT INTO score_buckets (size, kind, bucket, players)
SELECT size, kind, length(score) * 1000 + CAST(substr(score, 1, 3) AS INTEGER) AS bucket, count(*)
FROM player_bests GROUP BY size, kind, bucket;

-- +goose StatementBegin
CREATE TRIGGER player_bests_insert AFTER INSERT ON player_bests BEGIN
    INSERT INTO score_buckets (size, kind, bucket, players)
    VALUES (new.size, new.kind, length(new.score) * 1000 + CAST(substr(new.score, 1, 3) AS INTEGER), 1)
    ON CONFLICT (size, kind, bucket) DO UPDATE SET players = players + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER player_bests_update AFTER UPDATE OF score ON player_bests
WHEN length(old.score) * 1000 + CAST(substr(old.score, 1, 3) AS INTEGER)
  <> length(new.score) * 1000 + CAST(substr(new.score, 1, 3) AS INTEGER)
BEGIN
    UPDATE score_buckets SET players = players - 1
    WHERE size = old.size AND kind = old.kind
      AND bucket = length(old.score) * 1000 + CAST(substr(old.score, 1, 3) AS INTEGER);
    INSERT INTO score_buckets (size, kind, bucket, players)
    VALUES (new.size, new.kind, length(new.score) * 1000 + CAST(substr(new.score, 1, 3) AS INTEGER), 1)
    ON CONFLICT (size, kind, bucket) DO UPDATE SET players = players + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER player_bests_delete AFTER DELETE ON player_bests BEGIN
    UPDATE score_buckets SET players = players - 1
    WHERE size = old.size AND kind = old.kind
      AND bucket = length(old.score) * 1000 + CAST(substr(old.score, 1, 3) AS INTEGER);
END;
-- +goose StatementEnd

CREATE VIEW score_bucket_totals AS SELECT size, kind, bucket, players FROM score_buckets;
