-- documents: the public documents probes judged (A2A agent cards, RFC 9728 protected-resource
-- metadata), from the compacted `documents` topic, keyed by the SHA-256 of their bytes. Probe
-- events keep only that hash (seed 003 §7: no probe response bodies are stored); the verdict
-- processor reads the document here by hash, so a replay judges exactly what was seen.
-- `text` is the document as the rules judge it: its bytes decoded as UTF-8 (invalid sequences
-- replaced, `valid_utf8 = 0`; a leading BOM removed). One row per hash; the newest observed_at
-- wins. No TTL: a replay may reach back to the first probe.
CREATE TABLE IF NOT EXISTS documents
(
    sha256      String,
    text        String CODEC(ZSTD(3)),
    valid_utf8  UInt8,
    bytes       UInt32,
    url         String,
    observed_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(observed_at)
ORDER BY sha256
COMMENT 'Documents probes judged (cards, RFC 9728 metadata) by content hash; probe events name them; no TTL';
