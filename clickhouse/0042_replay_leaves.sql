-- A replay's scratch, in two tables that replace replay_trees (all emptied by every replay): the
-- leaves of a share's trees as the engine numbered and hashed them (replay_leaves: a leaf's place n
-- in the share's (agent, time, event) order, its event id and its hash), and each leaf's proof, its
-- hashes joined into one string, as the replay computed it (replay_leaf_proofs). The verdicts insert
-- joins the facts to the leaves by event id and the leaves to the proofs by n, so a probe whose
-- facts were written after the leaves were taken has no verdict here (the topic's tail writes it),
-- and no event id travels out of the engine and back (src/processors/verdicts/replay-facts.ts).
-- Hashes do not compress: they are stored as they are.
DROP TABLE IF EXISTS replay_trees;
CREATE TABLE IF NOT EXISTS replay_leaves
(
    checker_version LowCardinality(String),
    n               UInt64,
    event_id        String,
    leaf            FixedString(32) CODEC(NONE)
)
ENGINE = MergeTree
PARTITION BY checker_version
ORDER BY (checker_version, n)
COMMENT 'Scratch of a replay from facts: each leaf of a share''s trees, by its place in the share, until its verdicts are written';
CREATE TABLE IF NOT EXISTS replay_leaf_proofs
(
    checker_version LowCardinality(String),
    n               UInt64,
    proof           String CODEC(NONE)
)
ENGINE = MergeTree
PARTITION BY checker_version
ORDER BY (checker_version, n)
COMMENT 'Scratch of a replay from facts: each leaf''s proof (its hashes joined), by the leaf''s place in the share, until its verdicts are written';
