-- v_agents_current__v1: every known agent, one row each (deduplicated), with the
-- number of sources that list it.
CREATE VIEW IF NOT EXISTS v_agents_current__v1 AS
SELECT *, toUInt32(length(sources)) AS source_count
FROM agents FINAL;
