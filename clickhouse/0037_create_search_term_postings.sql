-- The search postings with each agent's facets (docs/SEARCH.md), replacing search_postings (0035):
-- a query counts its facets and applies its filters over every posting of its terms in the engine,
-- with no join to the documents. The index writer deletes an agent's previous postings in the
-- same write that makes new ones current (a lightweight DELETE, written as a patch part: the
-- block number and offset columns below), so once a write is done an agent has only its current
-- postings. Each posting to delete lies in a granule among other agents' postings of its term:
-- granules of 256 rows keep what a DELETE reads to find them (and what a term's head reads past) small.
CREATE TABLE IF NOT EXISTS search_term_postings
(
    term           String,
    rank           UInt16,
    agent_id       String,
    content        UInt64,
    protocol       LowCardinality(String),
    sources        Array(LowCardinality(String)),
    transports     Array(LowCardinality(String)),
    auth_required  UInt8
)
ENGINE = ReplacingMergeTree
ORDER BY (term, rank, agent_id, content)
SETTINGS index_granularity = 256, enable_block_number_column = 1, enable_block_offset_column = 1
COMMENT 'Impact-ordered search postings (term, 65535 - impact, agent, content) with the agent''s facets; only current ones (the writer deletes older); no TTL';

-- The current postings of listable agents, with their document's facets (stale ones are left behind).
INSERT INTO search_term_postings (term, rank, agent_id, content, protocol, sources, transports, auth_required)
SELECT p.term, p.rank, p.agent_id, p.content, d.protocol, d.sources, d.transports, d.auth_required
FROM search_postings AS p
INNER JOIN
(
    SELECT agent_id, content, protocol, sources, transports, auth_required FROM search_documents FINAL WHERE listable = 1
) AS d ON d.agent_id = p.agent_id AND d.content = p.content;

ALTER TABLE search_postings MODIFY COMMENT 'Superseded by search_term_postings (0037): no longer written or read; may be dropped';

CREATE OR REPLACE VIEW veronikai_public.search_postings AS
SELECT p.term AS term, toUInt16(65535 - p.rank) AS impact, p.agent_id AS agent_id
FROM search_term_postings AS p
INNER JOIN
(
    SELECT agent_id, content FROM search_documents FINAL
    WHERE listable = 1 AND agent_key NOT IN (SELECT agent_key FROM agents FINAL WHERE opt_out = 'hidden')
) AS d ON d.agent_id = p.agent_id AND d.content = p.content;
