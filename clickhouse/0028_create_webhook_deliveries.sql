-- webhook_deliveries: the final outcome of delivering one agent change to one webhook subscription
-- (delivered, dead, refused, stale, hidden), from the `webhook-deliveries` topic. Keyed by
-- (subscription_id, change_id), so an outcome recorded twice (a deliverer that crashed before
-- its commit, a replay of the topic) collapses: read with FINAL. The deliverer reads this table
-- before it sends, so a change published twice is delivered once. No PARTITION BY: copies must
-- share a part family to collapse, and the table is small.
-- TTL 90 days on recorded_at, like the other operational logs (source_fetches): it is a delivery
-- log for operators, the topic keeps every record forever, and the deliverer never sends a change
-- older than its age limit (VERONIKAI_WEBHOOKS_MAX_AGE, at most 7 days), so a row it needs to
-- skip a duplicate never expires while that change could still be sent.
CREATE TABLE IF NOT EXISTS webhook_deliveries
(
    subscription_id    String,
    change_id          String,
    delivery_id        String,
    kind               LowCardinality(String),
    agent_id           String,
    agent_key          String,
    change_observed_at DateTime64(3, 'UTC'),
    status             LowCardinality(String),
    attempts           UInt16,
    last_status        Nullable(UInt16),
    error_class        LowCardinality(String),
    error              String,
    duration_ms        UInt32,
    recorded_at        DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(recorded_at)
ORDER BY (subscription_id, change_id)
TTL recorded_at + INTERVAL 90 DAY
COMMENT 'Final outcome of each webhook delivery (subscription × change) from the webhook-deliveries topic; ReplacingMergeTree; TTL 90 days on recorded_at';
