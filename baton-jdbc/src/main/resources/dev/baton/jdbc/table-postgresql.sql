-- Baton JDBC "table" strategy, PostgreSQL. Safe to run more than once.
-- One row per lock name, kept while the name is in use (a name free for an hour may be deleted).
-- lock_mode 'X': one holder (owner_id); 'S': readers in ${readers}, expires_at the latest of theirs;
-- '-': free. version is the fencing token of the current grant, drawn from ${sequence}.
CREATE TABLE IF NOT EXISTS ${table} (
  lock_name     VARCHAR(512) NOT NULL PRIMARY KEY,
  version       BIGINT       NOT NULL,
  lock_mode     CHAR(1)      NOT NULL,
  owner_id      VARCHAR(64)  NOT NULL,
  expires_at    TIMESTAMP WITH TIME ZONE NOT NULL,
  -- Who holds it, for operators (host, pid, thread, client name).
  holder        VARCHAR(120),
  -- The LISTEN channel of one waiting client, which the release NOTIFYs; NULL: nobody waits.
  waiter        VARCHAR(63),
  -- Fair hand-off: how many entries joined the line of this name (an upper bound); 0: nobody waits,
  -- and no statement reads ${table}_waiters.
  queued        INT          NOT NULL DEFAULT 0
);
-- One row per reader of a lock in mode 'S'.
CREATE TABLE IF NOT EXISTS ${readers} (
  lock_name     VARCHAR(512) NOT NULL,
  owner_id      VARCHAR(64)  NOT NULL,
  expires_at    TIMESTAMP WITH TIME ZONE NOT NULL,
  fencing_token BIGINT       NOT NULL,
  holder        VARCHAR(120),
  PRIMARY KEY (lock_name, owner_id)
);
-- Fencing tokens: never repeat, so a row deleted and inserted again keeps growing its version.
-- Keep CACHE 1 (the default): values cached per session would be handed out of order.
CREATE SEQUENCE IF NOT EXISTS ${sequence};
-- Fair hand-off: one row per waiting acquisition, in line by place (when it joined; ties by owner_id).
-- An entry counts while last_seen is recent; its client refreshes it while it waits and deletes it
-- when it stops. A granting statement skips the lock while a live waiter is ahead of the requester.
CREATE TABLE IF NOT EXISTS ${table}_waiters (
  lock_name     VARCHAR(512) NOT NULL,
  owner_id      VARCHAR(64)  NOT NULL,
  place         TIMESTAMP WITH TIME ZONE NOT NULL,
  last_seen     TIMESTAMP WITH TIME ZONE NOT NULL,
  -- The waiter's client's LISTEN channel, which a release NOTIFYs when this waiter is the head.
  channel       VARCHAR(63),
  -- The lease the waiter asked for and its holder description: a release that hands the lock to this
  -- waiter writes them into the lock row (NULL lease: a shared waiter's entry).
  lease_ms      BIGINT,
  holder        VARCHAR(120),
  PRIMARY KEY (lock_name, owner_id)
);
