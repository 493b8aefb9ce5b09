-- Baton JDBC "advisory" strategy, PostgreSQL. Safe to run more than once.
-- The lock itself is a session advisory lock and needs no table; this one only keeps the fencing
-- counter per lock name (one upsert per grant), so tokens keep growing across sessions.
CREATE TABLE IF NOT EXISTS ${table}_fencing (
  lock_name     VARCHAR(512) NOT NULL PRIMARY KEY,
  fencing_token BIGINT       NOT NULL
);
