-- +goose Up
--
-- An account a link merged away (link CODE --merge) is deleted, but its
-- id lives on in links players shared (/player/ID): a row here, written
-- in the merge's transaction, leads it on to the account it joined,
-- which may itself have joined another since (store.Accounts.MergedInto
-- follows the chain). joined_id refers to no row of players for that
-- reason. Merges made before this migration left no trace to recover.
-- merged_at is unix microseconds.
CREATE TABLE merged_accounts (
    account_id bigint PRIMARY KEY,
    joined_id  bigint NOT NULL,
    merged_at  bigint NOT NULL
);

-- +goose Down
DROP TABLE merged_accounts;
