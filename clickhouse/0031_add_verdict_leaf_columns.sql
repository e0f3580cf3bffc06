-- verdicts signed a batch at a time (docs/MERKLE.md): each verdict's leaf is rebuilt from its row,
-- so the row keeps the two things the leaf signs that were not columns yet: the scope of what was
-- judged (document | observation) and the hash of the judged inputs. '' on rows signed alone.
ALTER TABLE verdicts ADD COLUMN IF NOT EXISTS scope LowCardinality(String) DEFAULT '' AFTER structure_reasons;
ALTER TABLE verdicts ADD COLUMN IF NOT EXISTS inputs_hash String DEFAULT '' AFTER scope;
