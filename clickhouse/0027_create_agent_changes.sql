-- agent_changes: what watchers hear about (feeds, webhooks, the agent page's history), from the
-- `agent-changes` topic. A change's id is a function of its cause (kind, agent, cause event,
-- checker version), and its observed_at is the cause's, so a change derived or delivered twice
-- writes the same sort key and the copies collapse: read with FINAL. Sorted by time, newest read
-- first with LIMIT (the feeds); the bloom filter on agent_id lets one agent's history skip the
-- granules without it. Kept forever (no TTL): changes are few and they are the history.
CREATE TABLE IF NOT EXISTS agent_changes
(
    observed_at     DateTime64(3, 'UTC'),
    change_id       String,
    kind            LowCardinality(String),
    agent_key       String,
    agent_id        String,
    protocol        LowCardinality(String),
    name            String,
    checker_version LowCardinality(String),
    cause_event_id  String,
    from_state      Nullable(String),
    to_state        Nullable(String),
    summary         String,
    reasons         Array(String),
    written_at      DateTime64(3, 'UTC') DEFAULT now64(3, 'UTC'),
    INDEX by_agent agent_id TYPE bloom_filter GRANULARITY 1
)
ENGINE = ReplacingMergeTree(written_at)
ORDER BY (observed_at, change_id)
COMMENT 'Changes of agents (down, up, verdict, listed, delisted, corrected) from the agent-changes topic, by deterministic change id; ReplacingMergeTree; no TTL';
