-- v_listings_current__v1: listing items as they are now (deduplicated, tombstones
-- removed), without the bulky raw item; select from listings FINAL for raw.
CREATE VIEW IF NOT EXISTS v_listings_current__v1 AS
SELECT * EXCEPT (raw)
FROM listings FINAL
WHERE tombstoned = 0;
