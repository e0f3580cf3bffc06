-- Verdict proofs as bytes (docs/MERKLE.md): from now on each hash of verdicts.proof is stored as
-- its 32 raw bytes rather than 64 hex digits. The proof is most of a verdict row and nothing
-- compresses hashes, so it was most of what a replay wrote; rows written before keep their hex,
-- told apart by length. The column keeps its name and type (Array(String)): no row is rewritten.
-- The public view gives every proof in hex, as before; `veronikai verify` reads them so too.
CREATE OR REPLACE VIEW veronikai_public.verdict_proofs AS
SELECT event_id, agent_key, observed_at, checker_version, suite_id, suite_version, scope, inputs_hash, result, reasons,
       warnings, head_id, leaf_index, arrayMap(h -> if(length(h) = 32, lower(hex(h)), h), proof) AS proof
FROM verdicts FINAL
WHERE head_id != '' AND agent_key NOT IN (SELECT agent_key FROM agents FINAL WHERE opt_out = 'hidden');
