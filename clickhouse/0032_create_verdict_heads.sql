-- verdict_heads: the signed head of each batch's Merkle tree of verdicts (docs/MERKLE.md):
-- Ed25519 over "veronikai-tree-head/1\n" + the canonical JSON of {checker, root, size}. The id is
-- derived from those bytes, so a batch written twice gives the same row. Kept forever: a few
-- hundred bytes a batch, and every verdict row of the batch is checked against it.
CREATE TABLE IF NOT EXISTS verdict_heads
(
    head_id          String,
    checker_version  LowCardinality(String),
    tree_size        UInt32,
    root_hash        String,
    alg              LowCardinality(String),
    canonicalization LowCardinality(String),
    key_id           LowCardinality(String),
    signature        String,
    signed_at        DateTime64(3, 'UTC') DEFAULT now64(3, 'UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY (checker_version, head_id)
COMMENT 'Signed Merkle tree head per verdict batch; deduplicated by (checker_version, head_id); no TTL';
