-- listing_history: every listing event of an agent, as the verdict processor's join
-- context. A verdict is a pure function of (events, checker version), so a probe is
-- judged with the server.json its agent was listed with AT THE TIME of the probe
-- (the newest listing event at or before the probe), not with today's listing; this
-- is what makes a replay after a checker bump judge old probes as they were seen.
-- One row per listing event (deduplicated by event id), sorted by listing item: an item's
-- state at a time is one indexed read, and an item that moved to another agent key is seen
-- as moved. A bloom filter finds the items an agent key ever had. No TTL: a replay may reach
-- back to the first event. server_json repeats day after day and compresses well.
CREATE TABLE IF NOT EXISTS listing_history
(
    agent_key          String,
    observed_at        DateTime64(3, 'UTC'),
    event_id           String,
    source             LowCardinality(String),
    item_id            String,
    status             LowCardinality(String),
    endpoint_transport LowCardinality(String),
    server_json        String CODEC(ZSTD(3)),
    INDEX agent_key_idx agent_key TYPE bloom_filter GRANULARITY 1
)
ENGINE = ReplacingMergeTree
ORDER BY (source, item_id, observed_at, event_id)
COMMENT 'Every listing event per agent key (join context for judging probes as of their time); no TTL';
