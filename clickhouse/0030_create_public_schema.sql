-- The public schema: what the public ClickHouse interface serves (`--clickhouse-port`), with the
-- API's rules. Agents whose owners asked to be hidden are left out of every view; the owner's
-- opt-out reason, dispute reasons and notes, webhook deliveries, the search postings and the
-- judged documents (which could name a hidden agent) are not served. Each view reads its table
-- FINAL, so an analyst never sees a row twice. The owner's `sql` keeps the full schema.
CREATE DATABASE IF NOT EXISTS veronikai_public
COMMENT 'Views of the index with the public API''s rules: what the public ClickHouse interface serves';

CREATE VIEW IF NOT EXISTS veronikai_public.agents AS
SELECT agent_id, agent_key, protocol, name, description, endpoint_url, card_url, sources, source_first_seen,
       first_seen, last_seen, changed_at, active, inactive_since, has_server_json
FROM agents FINAL
WHERE opt_out != 'hidden';

CREATE VIEW IF NOT EXISTS veronikai_public.listings AS
SELECT source, item_id, agent_key, protocol, name, description, version_label, endpoint_url, endpoint_transport,
       card_url, server_json, status, raw_truncated, tombstoned, content_hash, changed_at, first_seen, last_seen
FROM listings FINAL
WHERE agent_key NOT IN (SELECT agent_key FROM agents FINAL WHERE opt_out = 'hidden');

CREATE VIEW IF NOT EXISTS veronikai_public.listing_history AS
SELECT agent_key, observed_at, event_id, source, item_id, status, endpoint_transport, server_json
FROM listing_history FINAL
WHERE agent_key NOT IN (SELECT agent_key FROM agents FINAL WHERE opt_out = 'hidden');

CREATE VIEW IF NOT EXISTS veronikai_public.checks AS
SELECT event_id, checker_version, agent_key, agent_id, protocol, run_id, observed_at, uptime, reason, http_status,
       latency_ms, in_sample, our_side, source
FROM checks FINAL
WHERE agent_key NOT IN (SELECT agent_key FROM agents FINAL WHERE opt_out = 'hidden');

CREATE VIEW IF NOT EXISTS veronikai_public.verdicts AS
SELECT event_id, agent_key, protocol, observed_at, checker_version, suite_id, suite_version, result, reasons,
       warnings, a2a_version, a2a_route, tolerant_valid, alt_version, alt_valid, schema_file, structure_result,
       structure_reasons, signature, in_sample, judged_at
FROM verdicts FINAL
WHERE agent_key NOT IN (SELECT agent_key FROM agents FINAL WHERE opt_out = 'hidden');

CREATE VIEW IF NOT EXISTS veronikai_public.agent_latest AS
SELECT checker_version, agent_key, agent_id, protocol, source, event_id, observed_at, uptime, reason, http_status,
       latency_ms, in_sample, our_side, suite_id, suite_version, result, reasons, warnings, a2a_version, a2a_route,
       signature
FROM agent_latest FINAL
WHERE agent_key NOT IN (SELECT agent_key FROM agents FINAL WHERE opt_out = 'hidden');

CREATE VIEW IF NOT EXISTS veronikai_public.agent_daily_history AS
SELECT checker_version, agent_key, day, agent_id, protocol, checks, up, down, unknown, skipped, sample_checks,
       sample_up, latency_p50_ms, latency_p95_ms, computed_at
FROM agent_daily_history FINAL
WHERE agent_key NOT IN (SELECT agent_key FROM agents FINAL WHERE opt_out = 'hidden');

CREATE VIEW IF NOT EXISTS veronikai_public.agent_changes AS
SELECT observed_at, change_id, kind, agent_key, agent_id, protocol, name, checker_version, cause_event_id,
       from_state, to_state, summary, reasons
FROM agent_changes FINAL
WHERE agent_key NOT IN (SELECT agent_key FROM agents FINAL WHERE opt_out = 'hidden');

CREATE VIEW IF NOT EXISTS veronikai_public.corrections AS
SELECT dispute_id, requested_at, agent_key, agent_id, protocol, name, disputed_checker_version, disputed_event_id,
       disputed_at, disputed_uptime, disputed_result, disputed_reasons, outcome, checker_version, reprobe_event_id,
       reprobed_at, reprobe_uptime, reprobe_result, reprobe_reasons, verdict_changed, uptime_changed, change_id,
       closed_at
FROM corrections FINAL
WHERE agent_key NOT IN (SELECT agent_key FROM agents FINAL WHERE opt_out = 'hidden');

CREATE VIEW IF NOT EXISTS veronikai_public.run_samples AS
SELECT run_id, checker_version, event_id, agent_key, agent_id, observed_at, uptime, result
FROM run_samples FINAL
WHERE agent_key NOT IN (SELECT agent_key FROM agents FINAL WHERE opt_out = 'hidden');

-- Aggregates: hidden agents are already left out when a day or a census is computed.
CREATE VIEW IF NOT EXISTS veronikai_public.daily_rollups AS
SELECT * FROM daily_rollups FINAL;

CREATE VIEW IF NOT EXISTS veronikai_public.census_totals AS
SELECT * FROM census_totals FINAL;

CREATE VIEW IF NOT EXISTS veronikai_public.runs AS
SELECT * FROM runs FINAL;

CREATE VIEW IF NOT EXISTS veronikai_public.source_fetches AS
SELECT * FROM source_fetches FINAL;

CREATE VIEW IF NOT EXISTS veronikai_public.checker_current AS
SELECT * FROM checker_current FINAL;

-- The catalogue BI tools read (Grafana, DBeaver): system.databases, system.tables and
-- system.columns narrowed to the public schema, without the engine's file paths. The public
-- interface points a statement's system.tables (and the others) here.
CREATE DATABASE IF NOT EXISTS veronikai_public_catalogue
COMMENT 'system.databases, system.tables and system.columns as the public ClickHouse interface shows them';

CREATE VIEW IF NOT EXISTS veronikai_public_catalogue.databases AS
SELECT name, engine, comment, '' AS data_path, '' AS metadata_path, uuid
FROM system.databases
WHERE name = 'veronikai_public';

CREATE VIEW IF NOT EXISTS veronikai_public_catalogue.tables AS
SELECT database, name, uuid, engine, is_temporary, [] AS data_paths, '' AS metadata_path, metadata_modification_time,
       dependencies_database, dependencies_table, create_table_query, engine_full, as_select, partition_key,
       sorting_key, primary_key, sampling_key, storage_policy, total_rows, total_bytes, comment
FROM system.tables
WHERE database = 'veronikai_public';

CREATE VIEW IF NOT EXISTS veronikai_public_catalogue.columns AS
SELECT database, table, name, type, position, default_kind, default_expression, data_compressed_bytes,
       data_uncompressed_bytes, marks_bytes, comment, is_in_partition_key, is_in_sorting_key, is_in_primary_key,
       is_in_sampling_key, compression_codec, character_octet_length, numeric_precision, numeric_precision_radix,
       numeric_scale, datetime_precision
FROM system.columns
WHERE database = 'veronikai_public';
