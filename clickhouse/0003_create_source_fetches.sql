-- source_fetches: one row per request to a listing source (the `source-fetches` topic).
-- Deduplicated by event id: the sort key starts with columns that are fixed by the
-- event (source, observed_at), so two copies of one event share the whole key and
-- collapse, while time-range queries per source stay cheap. TTL 90 days; expiry
-- happens when parts merge, so read with FINAL and a time filter.
CREATE TABLE IF NOT EXISTS source_fetches
(
    event_id           String,
    run_id             String,
    source             LowCardinality(String),
    url                String,
    page               UInt32,
    cursor             String,
    mode               LowCardinality(String) DEFAULT '',
    status             Nullable(UInt16),
    ok                 UInt8,
    not_modified       UInt8,
    etag               String DEFAULT '',
    item_count         UInt32,
    invalid_item_count UInt32 DEFAULT 0,
    next_cursor        String DEFAULT '',
    bytes              UInt64 DEFAULT 0,
    gate               LowCardinality(String) DEFAULT '',
    duration_ms        UInt32,
    error_class        LowCardinality(String),
    error              String,
    observed_at        DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(observed_at)
ORDER BY (source, observed_at, event_id)
TTL observed_at + INTERVAL 90 DAY
COMMENT 'One row per listing-source request; deduplicated by event id; TTL 90 days on observed_at';
