-- verdicts: the conformance verdict of each probe, per checker version. A checker
-- version bump replays the probes into new rows beside the old ones (the version is
-- part of the key). judged_at records when the row was written (it is not part of the
-- verdict, which is a pure function of the event and the checker version); the view
-- v_checker_current__v1 uses it to find the newest checker. TTL 90 days, like checks.
-- For A2A the row is the card suite (veronikai-a2a-get-card); the structural check of seed 001
-- rides along in the a2a_* and structure_* columns, so there is one row per probe and version.
CREATE TABLE IF NOT EXISTS verdicts
(
    event_id        String,
    agent_key       String,
    protocol        LowCardinality(String),
    observed_at     DateTime64(3, 'UTC'),
    checker_version LowCardinality(String),
    suite_id        LowCardinality(String),
    suite_version   LowCardinality(String),
    result          LowCardinality(String),
    reasons         Array(String),
    warnings        Array(String),
    a2a_version     LowCardinality(String),
    a2a_route       LowCardinality(String),
    tolerant_valid  Nullable(UInt8),
    alt_version     LowCardinality(String),
    alt_valid       Nullable(UInt8),
    schema_file     String,
    structure_result  LowCardinality(String) DEFAULT '',
    structure_reasons Array(String) DEFAULT [],
    signature       String,
    in_sample       UInt8,
    judged_at       DateTime64(3, 'UTC') DEFAULT now64(3, 'UTC'),
    CONSTRAINT verdicts_result CHECK result IN ('pass', 'fail', 'unknown', 'n/a')
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(observed_at)
ORDER BY (checker_version, agent_key, observed_at, event_id)
TTL observed_at + INTERVAL 90 DAY
COMMENT 'Conformance verdict per probe and checker version; deduplicated by (checker_version, event id); TTL 90 days';
