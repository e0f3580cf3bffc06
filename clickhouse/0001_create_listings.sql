-- listings: the latest state of every listing item, one row per (source, item_id).
-- Written by the listings processor from the `listings` topic. The version is the
-- observed-at time in milliseconds, so a replayed or duplicated event writes the same
-- row again and an older event never replaces a newer one. The writer carries
-- first_seen forward from the state it already has, and changed_at (when the listed
-- content last changed, by content_hash) so the scheduler can recheck changed agents. Read with FINAL (or through
-- v_listings_current__v1). No TTL: this is current state.
CREATE TABLE IF NOT EXISTS listings
(
    source             LowCardinality(String),
    item_id            String,
    agent_key          String,
    protocol           LowCardinality(String),
    name               String,
    description        String,
    version_label      String,
    endpoint_url       String,
    endpoint_transport LowCardinality(String) DEFAULT '',
    card_url           String,
    server_json        String CODEC(ZSTD(3)),
    status             LowCardinality(String) DEFAULT '',
    raw                String CODEC(ZSTD(3)),
    raw_truncated      UInt8 DEFAULT 0,
    tombstoned         UInt8,
    content_hash       String DEFAULT '',
    changed_at         DateTime64(3, 'UTC'),
    first_seen         DateTime64(3, 'UTC'),
    last_seen          DateTime64(3, 'UTC'),
    last_event_id      String,
    version            UInt64,
    INDEX agent_key_idx agent_key TYPE bloom_filter GRANULARITY 1,
    CONSTRAINT listings_protocol CHECK protocol IN ('a2a', 'mcp')
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (source, item_id)
COMMENT 'Latest state per listing item (source, item_id); ReplacingMergeTree(version = observed-at ms); read with FINAL; no TTL';
