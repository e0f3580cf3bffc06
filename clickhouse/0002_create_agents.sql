-- agents: one merged agent per dedupe key (src/identity/agent-key.ts), built by the
-- listings processor from every source that lists it. agent_id is the stable short id
-- derived from the key. version is the observed-at time in milliseconds of the event
-- that produced the row. Read with FINAL (or through v_agents_current__v1). No TTL.
CREATE TABLE IF NOT EXISTS agents
(
    agent_id          String,
    agent_key         String,
    protocol          LowCardinality(String),
    name              String,
    description       String,
    endpoint_url      String,
    card_url          String,
    sources           Array(LowCardinality(String)),
    source_first_seen Map(String, DateTime64(3, 'UTC')),
    first_seen        DateTime64(3, 'UTC'),
    last_seen         DateTime64(3, 'UTC'),
    changed_at        DateTime64(3, 'UTC'),
    active            UInt8,
    inactive_since    Nullable(DateTime64(3, 'UTC')),
    has_server_json   UInt8,
    version           UInt64,
    INDEX agent_id_idx agent_id TYPE bloom_filter GRANULARITY 1,
    CONSTRAINT agents_protocol CHECK protocol IN ('a2a', 'mcp'),
    CONSTRAINT agents_description_length CHECK lengthUTF8(description) <= 500
)
ENGINE = ReplacingMergeTree(version)
ORDER BY agent_key
COMMENT 'One merged agent per dedupe key; ReplacingMergeTree(version = observed-at ms); read with FINAL; no TTL';
