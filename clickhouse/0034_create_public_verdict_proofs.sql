-- The public schema (0030) gains what anyone needs to check a verdict with the published key
-- (docs/MERKLE.md): every signed head, and each visible verdict's leaf fields and proof. The
-- verdicts view of 0030 keeps its columns; hidden agents stay out here as there.
CREATE VIEW IF NOT EXISTS veronikai_public.verdict_heads AS
SELECT head_id, checker_version, tree_size, root_hash, alg, canonicalization, key_id, signature, signed_at
FROM verdict_heads FINAL;

CREATE VIEW IF NOT EXISTS veronikai_public.verdict_proofs AS
SELECT event_id, agent_key, observed_at, checker_version, suite_id, suite_version, scope, inputs_hash, result, reasons,
       warnings, head_id, leaf_index, proof
FROM verdicts FINAL
WHERE head_id != '' AND agent_key NOT IN (SELECT agent_key FROM agents FINAL WHERE opt_out = 'hidden');
