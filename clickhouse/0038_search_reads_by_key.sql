-- The ranked search's reads by key, made cheaper (docs/SEARCH.md, "What a query costs").
--
-- A query looks up its best candidates by id in search_documents, agent_search_rows and
-- agent_status, and each term's head in search_term_postings and search_terms: a hundred scattered
-- rows, each in its own granule. Each such read decompresses the whole block its granule lies in
-- (64 KiB by default, thousands of rows of which one is wanted); blocks of 2 to 4 KiB make a
-- lookup's cost its own rows'. Parts written from now on have them; older parts as they merge.
ALTER TABLE search_documents MODIFY SETTING min_compress_block_size = 2048, max_compress_block_size = 4096;
ALTER TABLE search_term_postings MODIFY SETTING min_compress_block_size = 2048, max_compress_block_size = 4096;
ALTER TABLE search_terms MODIFY SETTING min_compress_block_size = 2048, max_compress_block_size = 4096;
ALTER TABLE agent_search_rows MODIFY SETTING min_compress_block_size = 2048, max_compress_block_size = 4096;
ALTER TABLE agent_status MODIFY SETTING min_compress_block_size = 2048, max_compress_block_size = 4096;

-- The record a search boosts by: up and judged checks of the 30 days up to the row's computation
-- (its day and the 29 before), filled by the engine as each row is written, so a query reads two
-- numbers per agent rather than its 90 days of arrays. Rows written before this migration compute
-- them when read.
ALTER TABLE agent_status
    ADD COLUMN IF NOT EXISTS up_30d UInt32 DEFAULT arraySum(arrayFilter((x, day) -> day > toDate(computed_at) - 30, day_up, days)),
    ADD COLUMN IF NOT EXISTS judged_30d UInt32 DEFAULT arraySum(arrayFilter((x, day) -> day > toDate(computed_at) - 30, day_judged, days));

-- search_term_facets: for each term, its listable agents by combination of facet values, as +1 / -1
-- deltas summed on merge (rows that sum to 0 go). A query of one term counts its total and facets
-- here, a handful of rows, whatever the number of agents that have the term. The index writer
-- writes it with the dictionary's deltas.
CREATE TABLE IF NOT EXISTS search_term_facets
(
    term           String,
    protocol       LowCardinality(String),
    sources        Array(LowCardinality(String)),
    transports     Array(LowCardinality(String)),
    auth_required  UInt8,
    agents         Int64
)
ENGINE = SummingMergeTree(agents)
ORDER BY (term, protocol, sources, transports, auth_required)
SETTINGS index_granularity = 1024, min_compress_block_size = 2048, max_compress_block_size = 4096
COMMENT 'Per term and combination of facet values (protocol, sources, transports, auth required): listable agents with the term, as +1/-1 deltas summed on merge; no TTL';

-- The current documents' terms by facets.
INSERT INTO search_term_facets (term, protocol, sources, transports, auth_required, agents)
SELECT term, protocol, sources, transports, auth_required, count()
FROM search_documents FINAL
ARRAY JOIN mapKeys(impacts) AS term
WHERE listable = 1
GROUP BY term, protocol, sources, transports, auth_required;
