-- What checks a verdict row against its batch's signed head (verdict_heads, 0032; docs/MERKLE.md):
-- the head's id, the leaf's index in the tree and its inclusion proof (hex SHA-256 hashes,
-- deepest first). Rows signed one at a time (signature holds the attestation) keep the
-- defaults: head_id = ''.
ALTER TABLE verdicts ADD COLUMN IF NOT EXISTS head_id String DEFAULT '' AFTER signature;
ALTER TABLE verdicts ADD COLUMN IF NOT EXISTS leaf_index UInt32 DEFAULT 0 AFTER head_id;
ALTER TABLE verdicts ADD COLUMN IF NOT EXISTS proof Array(String) DEFAULT [] AFTER leaf_index;
