-- v_agent_latest_current__v1: each agent's latest check and verdict under the current
-- checker version, with the agent's name and active flag.
CREATE VIEW IF NOT EXISTS v_agent_latest_current__v1 AS
SELECT
    l.*,
    a.name AS name,
    a.active AS active
FROM (
    SELECT *
    FROM agent_latest FINAL
    WHERE checker_version = (SELECT checker_version FROM v_checker_current__v1)
) AS l
LEFT JOIN (SELECT agent_key, name, active FROM agents FINAL) AS a ON a.agent_key = l.agent_key;
