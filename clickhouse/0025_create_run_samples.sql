-- run_samples: one row per in-sample check of a run and checker version, with its
-- verdict's result, keyed by run, so a run's sample figures read that run's rows
-- (at most its sample size) instead of every check since the run started (issue 16).
-- Written by refreshRunSamples (src/warehouse/rollups.ts) from checks FINAL and
-- verdicts FINAL for the events of every verdict batch: a rewrite replaces the row.
-- Kept forever (the sample of a run outlives its 90-day raw rows).
CREATE TABLE IF NOT EXISTS run_samples
(
    run_id          String,
    checker_version LowCardinality(String),
    event_id        String,
    agent_key       String,
    agent_id        String,
    observed_at     DateTime64(3, 'UTC'),
    uptime          LowCardinality(String),
    result          LowCardinality(String)
)
ENGINE = ReplacingMergeTree
ORDER BY (run_id, checker_version, event_id)
COMMENT 'In-sample checks per run and checker version with their verdict result; ReplacingMergeTree by event; no TTL';

-- The runs judged before this migration.
INSERT INTO run_samples
SELECT c.run_id, c.checker_version, c.event_id, c.agent_key, c.agent_id, c.observed_at, c.uptime, v.result
FROM (SELECT run_id, checker_version, event_id, agent_key, agent_id, observed_at, uptime FROM checks FINAL WHERE in_sample = 1) AS c
LEFT JOIN (SELECT checker_version, event_id, result FROM verdicts FINAL) AS v
    ON v.event_id = c.event_id AND v.checker_version = c.checker_version;
