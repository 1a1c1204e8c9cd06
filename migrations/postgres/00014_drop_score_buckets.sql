-- +goose Up
-- The twin of sqlite/00014: ranks are kept in memory, loaded from
-- player_bests, so nothing reads the rank buckets any more; their
-- triggers ran on every write that changed a best, and the nodes folded
-- the changes once a second. Down puts them back, the buckets counted
-- from the bests again.
DROP VIEW score_bucket_totals;
DROP TRIGGER player_bests_insert ON player_bests;
DROP TRIGGER player_bests_update ON player_bests;
DROP TRIGGER player_bests_delete ON player_bests;
DROP FUNCTION player_bests_count;
DROP TABLE score_bucket_changes;
DROP TABLE score_buckets;
DROP FUNCTION score_bucket;

-- +goose Down
-- +goose StatementBegin
CREATE FUNCTION score_bucket(score bigint) RETURNS bigint
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT length(score::text) * 1000 + substr(score::text, 1, 3)::bigint $$;
-- +goose StatementEnd

CREATE TABLE score_buckets (
    size    int    NOT NULL,
    kind    text   NOT NULL,
    bucket  bigint NOT NULL,
    players bigint NOT NULL,
    PRIMARY KEY (size, kind, bucket)
);
INSERT INTO score_buckets (size, kind, bucket, players)
SELECT size, kind, score_bucket(score), count(*) FROM player_bests GROUP BY 1, 2, 3;

CREATE TABLE score_bucket_changes (
    id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    size   int    NOT NULL,
    kind   text   NOT NULL,
    bucket bigint NOT NULL,
    delta  int    NOT NULL
);
CREATE INDEX score_bucket_changes_board ON score_bucket_changes(size, kind, bucket);

-- +goose StatementBegin
CREATE FUNCTION player_bests_count() RETURNS trigger LANGUAGE plpgsql AS $$
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

CREATE TRIGGER player_bests_insert AFTER INSERT ON player_bests
FOR EACH ROW EXECUTE FUNCTION player_bests_count();
CREATE TRIGGER player_bests_update AFTER UPDATE OF score ON player_bests
FOR EACH ROW WHEN (score_bucket(OLD.score) <> score_bucket(NEW.score)) EXECUTE FUNCTION player_bests_count();
CREATE TRIGGER player_bests_delete AFTER DELETE ON player_bests
FOR EACH ROW EXECUTE FUNCTION player_bests_count();

CREATE VIEW score_bucket_totals AS
SELECT size, kind, bucket, sum(players)::bigint AS players FROM (
    SELECT size, kind, bucket, players FROM score_buckets
    UNION ALL
    SELECT size, kind, bucket, delta FROM score_bucket_changes
) AS both_tables GROUP BY size, kind, bucket;
