-- v_verdicts_current__v1: verdicts of the current checker version only
-- (see v_checker_current__v1), deduplicated. Last 90 days, like verdicts.
CREATE VIEW IF NOT EXISTS v_verdicts_current__v1 AS
SELECT *
FROM verdicts FINAL
WHERE checker_version = (SELECT checker_version FROM v_checker_current__v1);
