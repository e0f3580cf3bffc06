-- v_checker_current__v1: the checker version the other *_current views show.
-- The version recorded in checker_current wins; while none is recorded, the version of
-- the most recently written verdict (judged_at) is used. `pinned` says which applied.
CREATE VIEW IF NOT EXISTS v_checker_current__v1 AS
WITH
    (SELECT argMax(checker_version, set_at) FROM checker_current) AS pinned_version,
    (SELECT argMax(checker_version, judged_at) FROM verdicts) AS newest_version
SELECT
    if(pinned_version != '', pinned_version, newest_version) AS checker_version,
    toUInt8(pinned_version != '') AS pinned;
