-- corrections: the corrections log (Methods §9: an owner disputes a result, "we re-probe and log
-- corrections"), one row per dispute, written by the corrections processor from the `disputes`
-- topic once the dispute's re-probe has been judged (or closed without one): what was disputed
-- (reason, the check and verdict served then), what the re-probe found, and whether the verdict
-- changed. `outcome` is answered (re-probed and judged), not_completed (no judged re-probe within
-- the processor's wait) or not_reprobed (none was requested: the owner opted out of probing, no
-- URL). Deduplicated by dispute id (agent_key is fixed by the dispute); the version `rank` makes an
-- answered row win over a closed one of the same dispute. Kept forever (no TTL): disputes are few
-- and they are the record.
CREATE TABLE IF NOT EXISTS corrections
(
    dispute_id               String,
    requested_at             DateTime64(3, 'UTC'),
    agent_key                String,
    agent_id                 String,
    protocol                 LowCardinality(String),
    name                     String,
    reason                   String,
    disputed_checker_version LowCardinality(String),
    disputed_event_id        String,
    disputed_at              Nullable(DateTime64(3, 'UTC')),
    disputed_uptime          LowCardinality(String),
    disputed_result          LowCardinality(String),
    disputed_reasons         Array(String),
    request_id               String,
    outcome                  LowCardinality(String),
    note                     String,
    checker_version          LowCardinality(String),
    reprobe_event_id         String,
    reprobed_at              Nullable(DateTime64(3, 'UTC')),
    reprobe_uptime           LowCardinality(String),
    reprobe_result           LowCardinality(String),
    reprobe_reasons          Array(String),
    verdict_changed          UInt8,
    uptime_changed           UInt8,
    change_id                String,
    closed_at                DateTime64(3, 'UTC'),
    rank                     UInt8,
    INDEX by_agent agent_id TYPE bloom_filter GRANULARITY 1,
    CONSTRAINT corrections_outcome CHECK outcome IN ('answered', 'not_completed', 'not_reprobed')
)
ENGINE = ReplacingMergeTree(rank)
ORDER BY (agent_key, dispute_id)
COMMENT 'The corrections log: one row per dispute (what was disputed, the result of the re-probe, whether the verdict changed); ReplacingMergeTree by dispute id; no TTL';
