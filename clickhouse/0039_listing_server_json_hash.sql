-- listing_history.server_json_sha256: the SHA-256 (hex) of each row's server.json ('' when it has
-- none), computed by the engine as rows are written. The verdict processor names a listing's
-- server.json by it in a judgement's input digest and reads a text only for an input it has not
-- judged before, so a batch of probes reads no server.json it already knows (most of a replay's).
-- Rows written before this migration have it computed by the mutation that follows.
ALTER TABLE listing_history ADD COLUMN IF NOT EXISTS server_json_sha256 String
    MATERIALIZED if(server_json = '', '', lower(hex(SHA256(server_json))));
ALTER TABLE listing_history MATERIALIZE COLUMN server_json_sha256;
