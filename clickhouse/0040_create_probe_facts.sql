-- What a replay needs to judge the probe history again without reading the probes topic:
-- each probe's facts that no checker version changes (probe_facts), one probe event of each
-- distinct judged input (probe_inputs), and each version's judgement of each input
-- (judgements). A version's checks and verdicts are then the engine's join of the facts
-- with that version's judgements (docs/REPLAY.md). The verdict writer fills the first two
-- as it judges; a replay fills the third.
--
-- input_key is the digest of everything a judgement reads (src/processors/verdicts/memo.ts,
-- base64 SHA-256): the daily probes of an unchanged agent share it.
CREATE TABLE IF NOT EXISTS probe_facts
(
    event_id    String,
    agent_key   String,
    agent_id    String,
    protocol    LowCardinality(String),
    run_id      String,
    observed_at DateTime64(3, 'UTC'),
    in_sample   UInt8,
    source      LowCardinality(String),
    input_key   String,
    -- each exchange's status and duration, in order: a check's latency is the duration of the
    -- first exchange whose status is the one its judgement decided on
    statuses    Array(Nullable(UInt16)),
    durations   Array(UInt32)
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(observed_at)
ORDER BY (agent_key, observed_at, event_id)
TTL observed_at + INTERVAL 90 DAY
COMMENT 'One row per probe: the facts no checker version changes and the key of its judged inputs; TTL 90 days';

-- One probe event (the Avro bytes of the probes topic) per input key, with the listing context
-- it was judged with (JSON: transport, server.json hash; '' when the agent had no listing).
-- seen_at is the newest probe with these inputs the writer recorded (at most once a day per
-- input), so an input in use never expires.
CREATE TABLE IF NOT EXISTS probe_inputs
(
    input_key String,
    event     String,
    listing   String,
    seen_at   DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(seen_at)
ORDER BY input_key
TTL seen_at + INTERVAL 90 DAY
COMMENT 'One probe event per distinct judged input, with its listing context; ReplacingMergeTree(seen_at); TTL 90 days after last seen';

-- A checker version's judgement of one input: every column of its checks and verdicts rows
-- that is not the probe's own, and the parts of a verdict's signed leaf around the probe's own
-- fields (docs/MERKLE.md), which the engine joins with each probe's.
CREATE TABLE IF NOT EXISTS judgements
(
    checker_version   LowCardinality(String),
    input_key         String,
    uptime            LowCardinality(String),
    reason            LowCardinality(String),
    http_status       Nullable(UInt16),
    our_side          UInt8,
    suite_id          LowCardinality(String),
    suite_version     LowCardinality(String),
    result            LowCardinality(String),
    reasons           Array(String),
    warnings          Array(String),
    a2a_version       LowCardinality(String),
    a2a_route         LowCardinality(String),
    tolerant_valid    Nullable(UInt8),
    alt_version       LowCardinality(String),
    alt_valid         Nullable(UInt8),
    schema_file       LowCardinality(String),
    structure_result  LowCardinality(String),
    structure_reasons Array(String),
    scope             LowCardinality(String),
    inputs_hash       String,
    leaf_before_event String,
    leaf_before_time  String,
    leaf_before_subject String,
    leaf_after_subject String,
    judged_at         DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(judged_at)
ORDER BY (checker_version, input_key)
TTL judged_at + INTERVAL 90 DAY
COMMENT 'Per checker version and input key, the judgement a replay joins with the probes; TTL 90 days';

-- A replay's scratch: each verdict's place in its signed tree (head, leaf index, inclusion
-- proof), computed by the replay from the leaves the engine hashed, then joined into the
-- verdicts it writes. A replay removes its rows when its verdicts are written.
CREATE TABLE IF NOT EXISTS replay_proofs
(
    checker_version LowCardinality(String),
    event_id        String,
    head_id         String,
    leaf_index      UInt32,
    proof           Array(String)
)
ENGINE = MergeTree
PARTITION BY checker_version
ORDER BY (checker_version, event_id)
COMMENT 'Scratch of a replay from facts: each verdict''s head, leaf index and proof until its verdicts are written';

-- The offsets of the probes topic whose facts the verdict writer has written, a batch at a time
-- (every message of the span: those it dead-lettered have none to write). A replay takes its
-- probes from the facts only where these spans cover the topic without a gap.
CREATE TABLE IF NOT EXISTS probe_fact_spans
(
    topic           String,
    topic_partition UInt32,
    first_offset    UInt64,
    last_offset     UInt64,
    written_at      DateTime64(3, 'UTC') DEFAULT now64(3, 'UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY (topic, topic_partition, first_offset, last_offset)
COMMENT 'Offset spans of the probes topic whose probe_facts are written; read whole by a replay';
