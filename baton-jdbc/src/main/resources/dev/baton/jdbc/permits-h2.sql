-- Baton JDBC semaphores (every strategy), H2. Safe to run more than once.
-- One row per semaphore name, created on its first use and never deleted: its permit count, which
-- every client must ask for, and the last fencing token handed out for it (tokens keep growing
-- although holder rows are deleted).
CREATE TABLE IF NOT EXISTS ${table}_semaphores (
  semaphore_name VARCHAR(512) NOT NULL PRIMARY KEY,
  permits        INT          NOT NULL,
  fencing_token  BIGINT       NOT NULL
);
-- One row per held permit, until it is released or, once expired, deleted by the next acquire.
CREATE TABLE IF NOT EXISTS ${table}_permits (
  semaphore_name VARCHAR(512) NOT NULL,
  owner_id       VARCHAR(64)  NOT NULL,
  fencing_token  BIGINT       NOT NULL,
  expires_at     TIMESTAMP WITH TIME ZONE NOT NULL,
  -- Who holds it, for operators (host, pid, thread, client name); NULL when written by an older version.
  holder         VARCHAR(120),
  PRIMARY KEY (semaphore_name, owner_id)
);
