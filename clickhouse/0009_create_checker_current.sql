-- checker_current: which checker version the analyst views call "current". The
-- version string lives in the conformance module, not in SQL, so whoever deploys a
-- checker (the judge processor at start, or `veronikai sql`) records it here; the
-- newest set_at wins. While it is empty, v_checker_current__v1 falls back to the
-- checker version of the most recently written verdict.
CREATE TABLE IF NOT EXISTS checker_current
(
    checker_version String,
    set_at          DateTime64(3, 'UTC'),
    note            String DEFAULT ''
)
ENGINE = ReplacingMergeTree(set_at)
ORDER BY tuple()
COMMENT 'The current checker version for analyst views (one row after FINAL; newest set_at wins)';
