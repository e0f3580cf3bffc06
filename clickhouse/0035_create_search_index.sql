-- The ranked search index (docs/SEARCH.md): a forward table of search documents, impact-ordered
-- postings, and a term dictionary with document frequencies. The index writer
-- (src/warehouse/search/index-writer.ts) fills all three from the agents, listings and cards the
-- processors wrote, in the same batch; a rebuild from the topics writes the same rows.
--
-- search_documents: one row per agent, the newest by version. `content` names the postings that are
-- current (a hash of the indexed text); postings of any other content are stale and skipped on read.
-- `listable` is 0 for inactive and hidden agents (which have no current postings). `impacts` holds
-- each term's quantised BM25F impact, so the best candidates are scored exactly from this row.
CREATE TABLE IF NOT EXISTS search_documents
(
    agent_id       String,
    agent_key      String,
    version        UInt64,
    listable       UInt8,
    content        UInt64,
    card_sha256    String,
    protocol       LowCardinality(String),
    sources        Array(LowCardinality(String)),
    transports     Array(LowCardinality(String)),
    auth_required  UInt8,
    name           String,
    title          String,
    description    String,
    impacts        Map(String, UInt16)
)
ENGINE = ReplacingMergeTree(version)
ORDER BY agent_id
SETTINGS index_granularity = 64
COMMENT 'One search document per agent (newest version): display fields, facets, current postings content and term impacts; written by the search index writer; no TTL';

-- search_postings: (term, rank = 65535 - impact, agent) of listable agents' current content, so a
-- term's best documents come first and a query reads a bounded head of each term it asks for.
CREATE TABLE IF NOT EXISTS search_postings
(
    term      String,
    rank      UInt16,
    agent_id  String,
    content   UInt64
)
ENGINE = ReplacingMergeTree
ORDER BY (term, rank, agent_id, content)
SETTINGS index_granularity = 1024
COMMENT 'Impact-ordered search postings (term, 65535 - impact, agent, content); postings whose content is not the document''s current one are stale; no TTL';

-- search_terms: the term dictionary (prefix and typo expansion) with document frequencies, as
-- signed counts summed on merge: +1 when a document gains a term, -1 when it loses it. The empty
-- term counts the indexed documents.
CREATE TABLE IF NOT EXISTS search_terms
(
    term  String,
    df    Int64
)
ENGINE = SummingMergeTree(df)
ORDER BY term
SETTINGS index_granularity = 1024
COMMENT 'Search term dictionary: term and document frequency (sum of +1/-1 deltas; the empty term counts documents); no TTL';

-- Analysts read the index through the public schema with the API's rules: listable agents only
-- (hidden and inactive agents are left out), current postings only.
CREATE VIEW IF NOT EXISTS veronikai_public.search_documents AS
SELECT agent_id, agent_key, protocol, sources, transports, auth_required, name, title, description, impacts
FROM search_documents FINAL
WHERE listable = 1 AND agent_key NOT IN (SELECT agent_key FROM agents FINAL WHERE opt_out = 'hidden');

CREATE VIEW IF NOT EXISTS veronikai_public.search_postings AS
SELECT p.term AS term, toUInt16(65535 - p.rank) AS impact, p.agent_id AS agent_id
FROM search_postings AS p
INNER JOIN
(
    SELECT agent_id, content FROM search_documents FINAL
    WHERE listable = 1 AND agent_key NOT IN (SELECT agent_key FROM agents FINAL WHERE opt_out = 'hidden')
) AS d ON d.agent_id = p.agent_id AND d.content = p.content;

CREATE VIEW IF NOT EXISTS veronikai_public.search_terms AS
SELECT term, toUInt64(total) AS df
FROM (SELECT term, sum(df) AS total FROM search_terms GROUP BY term)
WHERE total > 0;
