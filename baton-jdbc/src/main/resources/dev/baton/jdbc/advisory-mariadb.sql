-- Baton JDBC "advisory" strategy, MariaDB/MySQL. Safe to run more than once.
-- The lock itself is a named lock (GET_LOCK) and needs no table; this one only keeps the fencing
-- counter per lock name (one upsert per grant), so tokens keep growing across sessions.
-- Lock names compare byte for byte (utf8mb4_nopad_bin), as on the other databases.
CREATE TABLE IF NOT EXISTS ${table}_fencing (
  lock_name     VARCHAR(512) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL PRIMARY KEY,
  fencing_token BIGINT       NOT NULL,
  -- The name's last holder, for operators (baton locks, forced releases), written by the same upsert:
  -- it holds the lock while IS_USED_LOCK(server_name) = connection_id. lease_ms bounds its idleness.
  owner_id      VARCHAR(64),
  holder        VARCHAR(120) CHARACTER SET utf8mb4,
  connection_id BIGINT,
  server_name   VARCHAR(64),
  lease_ms      BIGINT
) ENGINE=InnoDB;
