-- +goose Up
-- Rank buckets without hot rows. The triggers of 00001 add and take one
-- from a score_buckets row in the transaction of the move that changed a
-- best; on one SQLite writer that costs nothing, but with several nodes
-- each node's group commit held those counters (the same few low-score
-- buckets for every new player) until its COMMIT, so the nodes' groups
-- queued behind each other and deadlocked (measured under load: moves
-- waiting on Lock:transactionid, one-second stalls). Now a change of
-- bucket is a row appended to score_bucket_changes, which no two
-- transactions contend for, and the nodes fold the changes into
-- score_buckets about once a second, one at a time (package db/pg).
-- score_bucket_totals is what a rank sums: the buckets and the changes
-- not folded yet.
CREATE TABLE score_bucket_changes (
    id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    size   int    NOT NULL,
    kind   text   NOT NULL,
    bucket bigint NOT NULL,
    delta  int    NOT NULL
);
CREATE INDEX score_bucket_changes_board ON score_bucket_changes(size, kind, bucket);

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION player_bests_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        INSERT INTO score_bucket_changes (size, kind, bucket, delta)
        VALUES (OLD.size, OLD.kind, score_bucket(OLD.score), -1);
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') THEN
        INSERT INTO score_bucket_changes (size, kind, bucket, delta)
        VALUES (NEW.size, NEW.kind, score_bucket(NEW.score), 1);
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd

CREATE VIEW score_bucket_totals AS
SELECT size, kind, bucket, sum(players)::bigint AS players FROM (
    SELECT size, kind, bucket, players FROM score_buckets
    UNION ALL
    SELECT size, kind, bucket, delta FROM score_bucket_changes
) AS both_tables GROUP BY size, kind, bucket;

-- +goose Down
DROP VIEW score_bucket_totals;
INSERT INTO score_buckets (size, kind, bucket, players)
SELECT size, kind, bucket, sum(delta) FROM score_bucket_changes GROUP BY 1, 2, 3
ON CONFLICT (size, kind, bucket) DO UPDATE SET players = score_buckets.players + excluded.players;
DROP TABLE score_bucket_changes;
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION player_bests_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE score_buckets SET players = players - 1
        WHERE size = OLD.size AND kind = OLD.kind AND bucket = score_bucket(OLD.score);
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') THEN
        INSERT INTO score_buckets (size, kind, bucket, players)
        VALUES (NEW.size, NEW.kind, score_bucket(NEW.score), 1)
        ON CONFLICT (size, kind, bucket) DO UPDATE SET players = score_buckets.players + 1;
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
