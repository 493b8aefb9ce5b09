-- Baton JDBC "advisory" strategy, PostgreSQL. Safe to run more than once.
-- The lock itself is a session advisory lock and needs no table. Fencing tokens come from this
-- sequence, drawn while the lock is held, so they strictly increase per lock name (and across
-- names). A sequence is not transactional and writes WAL only every 32 values, so drawing a token
-- costs a grant no row write and no commit flush; a crash never hands a value out again.
CREATE SEQUENCE IF NOT EXISTS ${table}_adv_seq;
-- Who holds which advisory lock, for operators (baton locks, forced releases): one row per held
-- grant, written by the statement that takes the lock and deleted by the one that releases it.
-- Unlogged: the locks do not outlive a server restart either, and its writes cost no WAL flush.
-- A row whose session ended without releasing (a crashed client) is ignored: listings join
-- pg_locks, and the next grant of that name on a session with the same pid overwrites it.
CREATE UNLOGGED TABLE IF NOT EXISTS ${table}_adv_holders (
  pid           INT          NOT NULL,
  lock_name     VARCHAR(512) NOT NULL,
  advisory_key  BIGINT       NOT NULL,
  lock_mode     CHAR(1)      NOT NULL,
  owner_id      VARCHAR(64)  NOT NULL,
  fencing_token BIGINT       NOT NULL,
  lease_ms      BIGINT       NOT NULL,
  holder        VARCHAR(120),
  PRIMARY KEY (pid, lock_name)
);
