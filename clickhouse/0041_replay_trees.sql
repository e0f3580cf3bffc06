-- replay_trees replaces replay_proofs as a replay's scratch (both emptied by every replay): one row
-- per signed tree, its event ids and their proofs in leaf order, instead of a row per verdict
-- (src/processors/verdicts/replay-facts.ts).
DROP TABLE IF EXISTS replay_proofs;
CREATE TABLE IF NOT EXISTS replay_trees
(
    checker_version LowCardinality(String),
    head_id         String,
    event_ids       Array(String),
    proofs          Array(Array(String))
)
ENGINE = MergeTree
PARTITION BY checker_version
ORDER BY (checker_version, head_id)
COMMENT 'Scratch of a replay from facts: each signed tree''s head, event ids in leaf order and proofs until its verdicts are written';
