-- agent_changes: what watchers hear about (feeds, webhooks, the agent page's history), from the
-- `agent-changes` topic. A change's id is a function of its cause (kind, agent, cause event,
-- checker version), and its observed_at is the cause's, so a change derived or delivered twice
-- writes the same sort key and the copies collapse (read with FINAL, or LIMIT 1 BY the key).
-- Sorted by time, newest read first with LIMIT (the ecosystem feeds); one agent's history is
-- read from agent_changes_by_agent, the same rows sorted by agent, filled by a materialized
-- view. Kept forever (no TTL): changes are few and they are the history.
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
    written_at      DateTime64(3, 'UTC') DEFAULT now64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(written_at)
ORDER BY (observed_at, change_id)
COMMENT 'Changes of agents (down, up, verdict, listed, delisted, corrected) from the agent-changes topic, by deterministic change id; ReplacingMergeTree; no TTL';

CREATE TABLE IF NOT EXISTS agent_changes_by_agent
(
    agent_id        String,
    observed_at     DateTime64(3, 'UTC'),
    change_id       String,
    kind            LowCardinality(String),
    agent_key       String,
    protocol        LowCardinality(String),
    name            String,
    checker_version LowCardinality(String),
    cause_event_id  String,
    from_state      Nullable(String),
    to_state        Nullable(String),
    summary         String,
    reasons         Array(String),
    written_at      DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(written_at)
ORDER BY (agent_id, observed_at, change_id)
SETTINGS index_granularity = 256
COMMENT 'agent_changes sorted by agent (an agent page and feed read one agent by key), filled by agent_changes_by_agent_mv; ReplacingMergeTree; no TTL';

CREATE MATERIALIZED VIEW IF NOT EXISTS agent_changes_by_agent_mv TO agent_changes_by_agent AS
SELECT agent_id, observed_at, change_id, kind, agent_key, protocol, name, checker_version, cause_event_id,
       from_state, to_state, summary, reasons, written_at
FROM agent_changes;
