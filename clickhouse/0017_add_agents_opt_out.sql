-- agents.opt_out / opt_out_reason: an owner's opt-out (Methods §9), applied by the
-- listings processor from the configured opt-out list (VERONIKAI_OPT_OUT_FILE).
-- opt_out is '' (none), 'unchecked' (listed as its source lists it, never probed: the
-- scheduler skips every agent with opt_out != '') or 'hidden' (also not served by the API).
-- opt_out_reason records why. Rows written before this migration read as ''.
ALTER TABLE agents ADD COLUMN IF NOT EXISTS opt_out LowCardinality(String) DEFAULT '' AFTER has_server_json;
ALTER TABLE agents ADD COLUMN IF NOT EXISTS opt_out_reason String DEFAULT '' AFTER opt_out;
