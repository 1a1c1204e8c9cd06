-- +goose Up
-- PostgreSQL's 00007 moves its bucket counting off hot rows (several
-- nodes' writers contended for them) and adds score_bucket_totals, the
-- view a rank sums there. One SQLite writer has no such contention: its
-- triggers keep score_buckets exact, and the view is that table as it
-- is, so that both dialects answer the same question the same way.
CREATE VIEW score_bucket_totals AS SELECT size, kind, bucket, players FROM score_buckets;

-- +goose Down
DROP VIEW score_bucket_totals;
