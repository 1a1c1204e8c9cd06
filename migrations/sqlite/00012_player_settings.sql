-- +goose Up
-- A player's settings (store.SettingsKeeper): one row per setting the
-- player changed from its default, by key ("theme", "screen", "motion");
-- the store checks keys and values (store.CheckSetting) before writing.
-- updated_at is unix microseconds.
CREATE TABLE player_settings (
    player_id  INTEGER NOT NULL REFERENCES players(id),
    key        TEXT    NOT NULL,
    value      TEXT    NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (player_id, key)
) WITHOUT ROWID;

-- +goose Down
DROP TABLE player_settings;
