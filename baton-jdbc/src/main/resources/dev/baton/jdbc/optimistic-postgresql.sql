-- Baton JDBC "optimistic" strategy. Safe to run more than once.
-- One row per lock name, never deleted, so its version only grows: every acquisition adds one and
-- the version is the grant's fencing token. lock_mode 'X': one holder (owner_id); 'S': readers in
-- ${table}_opt_readers, expires_at the latest of theirs; '-': free.
CREATE TABLE IF NOT EXISTS ${table}_opt (
  lock_name     VARCHAR(512) NOT NULL PRIMARY KEY,
  version       BIGINT       NOT NULL,
  lock_mode     CHAR(1)      NOT NULL,
  owner_id      VARCHAR(64)  NOT NULL,
  expires_at    TIMESTAMP WITH TIME ZONE NOT NULL,
  -- The LISTEN channel of one waiting client, which the release NOTIFYs; NULL: nobody waits.
  waiter        VARCHAR(63)
);
-- One row per reader of a lock in mode 'S'.
CREATE TABLE IF NOT EXISTS ${table}_opt_readers (
  lock_name     VARCHAR(512) NOT NULL,
  owner_id      VARCHAR(64)  NOT NULL,
  expires_at    TIMESTAMP WITH TIME ZONE NOT NULL,
  fencing_token BIGINT       NOT NULL,
  PRIMARY KEY (lock_name, owner_id)
);
