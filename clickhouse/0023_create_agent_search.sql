-- The agent search (issue 16): a small inverted table and the rows its hits are checked
-- against, both filled from every insert into agents by materialized views, so the
-- first page of a search, or of the whole list, reads a page of postings in order of a
-- stored sort key instead of sorting every agent per request.
--
-- sort_key is the natural sort key of the name: lowercased, every run of digits
-- written as its length (two digits) then its value without leading zeros, so
-- "Agent 2" (agent 012) sorts before "Agent 10" (agent 0210).
--
-- agent_search_rows: the newest agents row of each agent, by agent_id: what a listed
-- agent shows, its sort key, and its words (name and key words, prefix-matched;
-- description words, matched whole). Small granules: it is read by id, a page of ids at a time.
CREATE TABLE IF NOT EXISTS agent_search_rows
(
    agent_id    String,
    agent_key   String,
    name        String,
    protocol    LowCardinality(String),
    sources     Array(LowCardinality(String)),
    active      UInt8,
    opt_out     LowCardinality(String),
    sort_key    String,
    name_words  Array(String),
    desc_words  Array(String),
    version     UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY agent_id
SETTINGS index_granularity = 64
COMMENT 'Newest agents row per agent_id with its natural sort key and words, filled by agent_search_rows_mv; ReplacingMergeTree(version); no TTL';

-- agent_search_terms: postings, one row per (term, agent) of every listable agent
-- (active, not hidden), in sort-key order within a term. Terms are every prefix (up to
-- 24 characters) of the words of the name and the agent key, the words of the
-- description (whole, at most 64), '' (every listable agent) and 'protocol:<p>'. A hidden
-- agent has one posting, 'opt_out:hidden' (so the few hidden agents are found by key),
-- an inactive one none. A posting whose version is not the agent's newest
-- (agent_search_rows) is stale: the agent was renamed, went inactive or was hidden (or
-- unhidden) since; readers skip it.
CREATE TABLE IF NOT EXISTS agent_search_terms
(
    term      String,
    sort_key  String,
    agent_id  String,
    version   UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (term, sort_key, agent_id)
SETTINGS index_granularity = 1024
COMMENT 'Search postings (term, natural sort key, agent) of listable agents, filled by agent_search_terms_mv; stale versions are skipped on read; no TTL';

CREATE MATERIALIZED VIEW IF NOT EXISTS agent_search_rows_mv TO agent_search_rows AS
SELECT
    agent_id, agent_key, name, protocol, sources, active, opt_out,
    arrayStringConcat(arrayMap(t -> if(match(t, '^[0-9]'),
        concat(leftPad(toString(length(ifNull(nullIf(trimLeft(t, '0'), ''), '0'))), 2, '0'), ifNull(nullIf(trimLeft(t, '0'), ''), '0')), t),
        extractAll(lowerUTF8(name), '[0-9]+|[^0-9]+'))) AS sort_key,
    arrayDistinct(extractAll(lowerUTF8(concat(name, ' ', agent_key)), '[\\p{L}\\p{N}]+')) AS name_words,
    arraySlice(arrayDistinct(arrayMap(w -> substringUTF8(w, 1, 24), extractAll(lowerUTF8(description), '[\\p{L}\\p{N}]+'))), 1, 64) AS desc_words,
    version
FROM agents;

CREATE MATERIALIZED VIEW IF NOT EXISTS agent_search_terms_mv TO agent_search_terms AS
SELECT term, sort_key, agent_id, version
FROM
(
    SELECT
        agent_id, version,
        arrayStringConcat(arrayMap(t -> if(match(t, '^[0-9]'),
            concat(leftPad(toString(length(ifNull(nullIf(trimLeft(t, '0'), ''), '0'))), 2, '0'), ifNull(nullIf(trimLeft(t, '0'), ''), '0')), t),
            extractAll(lowerUTF8(name), '[0-9]+|[^0-9]+'))) AS sort_key,
        if(opt_out = 'hidden', ['opt_out:hidden'], arrayDistinct(arrayConcat(
            ['', concat('protocol:', protocol)],
            arrayFlatten(arrayMap(w -> arrayMap(i -> substringUTF8(w, 1, i), range(1, least(lengthUTF8(w), 24) + 1)),
                arrayDistinct(extractAll(lowerUTF8(concat(name, ' ', agent_key)), '[\\p{L}\\p{N}]+')))),
            arraySlice(arrayDistinct(arrayMap(w -> substringUTF8(w, 1, 24), extractAll(lowerUTF8(description), '[\\p{L}\\p{N}]+'))), 1, 64)
        ))) AS terms
    FROM agents
    WHERE active = 1 OR opt_out = 'hidden'
)
ARRAY JOIN terms AS term;

-- The agents written before this migration (the views see only later inserts).
INSERT INTO agent_search_rows
SELECT
    agent_id, agent_key, name, protocol, sources, active, opt_out,
    arrayStringConcat(arrayMap(t -> if(match(t, '^[0-9]'),
        concat(leftPad(toString(length(ifNull(nullIf(trimLeft(t, '0'), ''), '0'))), 2, '0'), ifNull(nullIf(trimLeft(t, '0'), ''), '0')), t),
        extractAll(lowerUTF8(name), '[0-9]+|[^0-9]+'))) AS sort_key,
    arrayDistinct(extractAll(lowerUTF8(concat(name, ' ', agent_key)), '[\\p{L}\\p{N}]+')) AS name_words,
    arraySlice(arrayDistinct(arrayMap(w -> substringUTF8(w, 1, 24), extractAll(lowerUTF8(description), '[\\p{L}\\p{N}]+'))), 1, 64) AS desc_words,
    version
FROM agents FINAL;

INSERT INTO agent_search_terms
SELECT term, sort_key, agent_id, version
FROM
(
    SELECT
        agent_id, version,
        arrayStringConcat(arrayMap(t -> if(match(t, '^[0-9]'),
            concat(leftPad(toString(length(ifNull(nullIf(trimLeft(t, '0'), ''), '0'))), 2, '0'), ifNull(nullIf(trimLeft(t, '0'), ''), '0')), t),
            extractAll(lowerUTF8(name), '[0-9]+|[^0-9]+'))) AS sort_key,
        if(opt_out = 'hidden', ['opt_out:hidden'], arrayDistinct(arrayConcat(
            ['', concat('protocol:', protocol)],
            arrayFlatten(arrayMap(w -> arrayMap(i -> substringUTF8(w, 1, i), range(1, least(lengthUTF8(w), 24) + 1)),
                arrayDistinct(extractAll(lowerUTF8(concat(name, ' ', agent_key)), '[\\p{L}\\p{N}]+')))),
            arraySlice(arrayDistinct(arrayMap(w -> substringUTF8(w, 1, 24), extractAll(lowerUTF8(description), '[\\p{L}\\p{N}]+'))), 1, 64)
        ))) AS terms
    FROM agents FINAL
    WHERE active = 1 OR opt_out = 'hidden'
)
ARRAY JOIN terms AS term;
