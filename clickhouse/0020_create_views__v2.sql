-- The analyst views, __v2: the same views as __v1 with every column named. A view
-- written with `SELECT *` froze its column list when it was created, so
-- v_agents_current__v1 never showed the opt_out columns added by 0017. Here each view
-- lists its columns, and the *_current views read v_checker_current__v2. The __v1
-- views stay for compatibility; a later column change is a __v3 beside these.

-- v_checker_current__v2: the checker version the other *_current__v2 views show.
-- The version recorded in checker_current wins; while none is recorded, the version of
-- the most recently written verdict (judged_at) is used. `pinned` says which applied.
CREATE VIEW IF NOT EXISTS v_checker_current__v2 AS
WITH
    (SELECT argMax(checker_version, set_at) FROM checker_current) AS pinned_version,
    (SELECT argMax(checker_version, judged_at) FROM verdicts) AS newest_version
SELECT
    if(pinned_version != '', pinned_version, newest_version) AS checker_version,
    toUInt8(pinned_version != '') AS pinned;

-- v_listings_current__v2: listing items as they are now (deduplicated, tombstones
-- removed), without the bulky raw item; select from listings FINAL for raw.
CREATE VIEW IF NOT EXISTS v_listings_current__v2 AS
SELECT
    source, item_id, agent_key, protocol, name, description, version_label,
    endpoint_url, endpoint_transport, card_url, server_json, status, raw_truncated,
    tombstoned, content_hash, changed_at, first_seen, last_seen, last_event_id, version
FROM listings FINAL
WHERE tombstoned = 0;

-- v_agents_current__v2: every known agent, one row each (deduplicated), with its
-- owner's opt-out and the number of sources that list it.
CREATE VIEW IF NOT EXISTS v_agents_current__v2 AS
SELECT
    agent_id, agent_key, protocol, name, description, endpoint_url, card_url,
    sources, source_first_seen, first_seen, last_seen, changed_at,
    active, inactive_since, has_server_json, opt_out, opt_out_reason, version,
    toUInt32(length(sources)) AS source_count
FROM agents FINAL;

-- v_verdicts_current__v2: verdicts of the current checker version only
-- (see v_checker_current__v2), deduplicated. Last 90 days, like verdicts.
CREATE VIEW IF NOT EXISTS v_verdicts_current__v2 AS
SELECT
    event_id, agent_key, protocol, observed_at, checker_version, suite_id, suite_version,
    result, reasons, warnings, a2a_version, a2a_route, tolerant_valid, alt_version,
    alt_valid, schema_file, structure_result, structure_reasons, signature, in_sample, judged_at
FROM verdicts FINAL
WHERE checker_version = (SELECT checker_version FROM v_checker_current__v2);

-- v_agent_latest_current__v2: each agent's latest check and verdict under the current
-- checker version, with the agent's name and active flag.
CREATE VIEW IF NOT EXISTS v_agent_latest_current__v2 AS
SELECT
    l.checker_version AS checker_version, l.agent_key AS agent_key, l.agent_id AS agent_id,
    l.protocol AS protocol, l.source AS source, l.event_id AS event_id, l.observed_at AS observed_at,
    l.uptime AS uptime, l.reason AS reason, l.http_status AS http_status, l.latency_ms AS latency_ms,
    l.in_sample AS in_sample, l.our_side AS our_side, l.suite_id AS suite_id, l.suite_version AS suite_version,
    l.result AS result, l.reasons AS reasons, l.warnings AS warnings, l.a2a_version AS a2a_version,
    l.a2a_route AS a2a_route, l.signature AS signature,
    a.name AS name,
    a.active AS active
FROM (
    SELECT
        checker_version, agent_key, agent_id, protocol, source, event_id, observed_at,
        uptime, reason, http_status, latency_ms, in_sample, our_side,
        suite_id, suite_version, result, reasons, warnings, a2a_version, a2a_route, signature
    FROM agent_latest FINAL
    WHERE checker_version = (SELECT checker_version FROM v_checker_current__v2)
) AS l
LEFT JOIN (SELECT agent_key, name, active FROM agents FINAL) AS a ON a.agent_key = l.agent_key;

-- v_daily_rollups__v2: daily_rollups deduplicated, with rates and 95 % Wilson score
-- intervals computed from the uniform random sample only:
--   uptime = up / (up + down)        (unknown and skipped checks are left out)
--   pass_rate = pass / (pass + fail) (unknown and n/a verdicts are left out)
-- Wilson bounds are NULL when the sample has no judged checks. All checker versions
-- are listed; filter on checker_version (or join v_checker_current__v2).
CREATE VIEW IF NOT EXISTS v_daily_rollups__v2 AS
WITH
    1.959963984540054 AS z,
    toFloat64(sample_up + sample_down) AS n_up,
    toFloat64(sample_pass + sample_fail) AS n_pass,
    sample_up / nullIf(n_up, 0) AS p_up,
    sample_pass / nullIf(n_pass, 0) AS p_pass
SELECT
    day, protocol, source, checker_version,
    checks, up, down, unknown, skipped,
    pass, fail, unknown_verdict, na,
    sample_checks, sample_up, sample_down, sample_unknown, sample_skipped,
    sample_pass, sample_fail, sample_unknown_verdict, sample_na,
    up / nullIf(up + down, 0) AS uptime,
    pass / nullIf(pass + fail, 0) AS pass_rate,
    p_up AS sample_uptime,
    (p_up + z * z / (2 * n_up) - z * sqrt(p_up * (1 - p_up) / n_up + z * z / (4 * n_up * n_up))) / (1 + z * z / n_up) AS sample_uptime_low,
    (p_up + z * z / (2 * n_up) + z * sqrt(p_up * (1 - p_up) / n_up + z * z / (4 * n_up * n_up))) / (1 + z * z / n_up) AS sample_uptime_high,
    p_pass AS sample_pass_rate,
    (p_pass + z * z / (2 * n_pass) - z * sqrt(p_pass * (1 - p_pass) / n_pass + z * z / (4 * n_pass * n_pass))) / (1 + z * z / n_pass) AS sample_pass_rate_low,
    (p_pass + z * z / (2 * n_pass) + z * sqrt(p_pass * (1 - p_pass) / n_pass + z * z / (4 * n_pass * n_pass))) / (1 + z * z / n_pass) AS sample_pass_rate_high,
    computed_at
FROM daily_rollups FINAL;

-- v_agent_uptime__v2: per agent, uptime = up / (up + down) and the latency (p50, p95,
-- in ms, of the checks that were up) over the last 24 hours (from checks) and over the
-- last 7, 30 and 90 UTC days including today (from agent_daily_history, whose t-digest
-- states merge into one percentile for the whole window). A rate or latency is NULL
-- when its window has nothing to measure. Agents appear once agent_daily_history has
-- a row for them in the last 90 days. Uptime is judged by a checker version too: the view
-- shows the current one (v_checker_current__v2).
CREATE VIEW IF NOT EXISTS v_agent_uptime__v2 AS
WITH toDate(now64(3, 'UTC'), 'UTC') AS today_utc
SELECT
    h.agent_key AS agent_key,
    h.agent_id AS agent_id,
    h.protocol AS protocol,
    d.up_24h / nullIf(d.judged_24h, 0) AS uptime_24h,
    toUInt32(coalesce(d.checks_24h, 0)) AS checks_24h,
    if(isFinite(d.p50_24h), d.p50_24h, NULL) AS latency_p50_24h,
    if(isFinite(d.p95_24h), d.p95_24h, NULL) AS latency_p95_24h,
    h.up_7d / nullIf(h.judged_7d, 0) AS uptime_7d,
    toUInt32(h.checks_7d) AS checks_7d,
    if(isFinite(h.p50_7d), h.p50_7d, NULL) AS latency_p50_7d,
    if(isFinite(h.p95_7d), h.p95_7d, NULL) AS latency_p95_7d,
    h.up_30d / nullIf(h.judged_30d, 0) AS uptime_30d,
    toUInt32(h.checks_30d) AS checks_30d,
    if(isFinite(h.p50_30d), h.p50_30d, NULL) AS latency_p50_30d,
    if(isFinite(h.p95_30d), h.p95_30d, NULL) AS latency_p95_30d,
    h.up_90d / nullIf(h.judged_90d, 0) AS uptime_90d,
    toUInt32(h.checks_90d) AS checks_90d,
    if(isFinite(h.p50_90d), h.p50_90d, NULL) AS latency_p50_90d,
    if(isFinite(h.p95_90d), h.p95_90d, NULL) AS latency_p95_90d,
    h.last_day AS last_day
FROM (
    SELECT
        agent_key,
        any(agent_id) AS agent_id,
        any(protocol) AS protocol,
        sumIf(up, day > today_utc - 7) AS up_7d,
        sumIf(up + down, day > today_utc - 7) AS judged_7d,
        sumIf(checks, day > today_utc - 7) AS checks_7d,
        quantileTDigestMergeIf(0.5)(latency_digest, day > today_utc - 7) AS p50_7d,
        quantileTDigestMergeIf(0.95)(latency_digest, day > today_utc - 7) AS p95_7d,
        sumIf(up, day > today_utc - 30) AS up_30d,
        sumIf(up + down, day > today_utc - 30) AS judged_30d,
        sumIf(checks, day > today_utc - 30) AS checks_30d,
        quantileTDigestMergeIf(0.5)(latency_digest, day > today_utc - 30) AS p50_30d,
        quantileTDigestMergeIf(0.95)(latency_digest, day > today_utc - 30) AS p95_30d,
        sum(up) AS up_90d,
        sum(up + down) AS judged_90d,
        sum(checks) AS checks_90d,
        quantileTDigestMerge(0.5)(latency_digest) AS p50_90d,
        quantileTDigestMerge(0.95)(latency_digest) AS p95_90d,
        max(day) AS last_day
    FROM agent_daily_history FINAL
    WHERE day > today_utc - 90 AND checker_version = (SELECT checker_version FROM v_checker_current__v2)
    GROUP BY agent_key
) AS h
LEFT JOIN (
    SELECT
        agent_key,
        countIf(uptime = 'up') AS up_24h,
        countIf(uptime IN ('up', 'down')) AS judged_24h,
        count() AS checks_24h,
        quantileIf(0.5)(latency_ms, uptime = 'up') AS p50_24h,
        quantileIf(0.95)(latency_ms, uptime = 'up') AS p95_24h
    FROM checks FINAL
    WHERE observed_at > now64(3, 'UTC') - INTERVAL 24 HOUR AND checker_version = (SELECT checker_version FROM v_checker_current__v2)
    GROUP BY agent_key
) AS d ON d.agent_key = h.agent_key
SETTINGS join_use_nulls = 1;
