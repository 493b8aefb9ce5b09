-- Baton JDBC "pessimistic" strategy, MariaDB. Safe to run more than once.
-- One row per lock name, created on first use and never deleted. A holder keeps the row locked
-- (SELECT ... FOR UPDATE, LOCK IN SHARE MODE for readers) in a transaction held open for the
-- lease; waiters queue on that row lock inside the database.
-- Lock names compare byte for byte (utf8mb4_nopad_bin): 'A', 'a' and 'a ' are three locks.
CREATE TABLE IF NOT EXISTS ${table}_pess (
  lock_name     VARCHAR(512) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL PRIMARY KEY
) ENGINE=InnoDB;
-- Fencing tokens: sequences are not transactional, so a token drawn by a holder whose transaction
-- is later rolled back (its connection broke) is never handed out again.
CREATE SEQUENCE IF NOT EXISTS ${table}_pess_seq;
-- Who holds which row lock, for operators (baton locks, forced releases): one row per connection
-- that holds a grant, written (with the token) by the statement that draws the token. MEMORY, so
-- the write is visible at once although the holder's transaction never commits, and costs no disk.
-- A row counts while its connection holds the named lock 'baton-pess#<connection id>', which the
-- same statement takes and the release gives back; a later grant on that connection replaces it.
CREATE TABLE IF NOT EXISTS ${table}_pess_holders (
  connection_id BIGINT       NOT NULL PRIMARY KEY,
  lock_name     VARCHAR(512) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
  lock_mode     CHAR(1)      NOT NULL,
  owner_id      VARCHAR(64)  NOT NULL,
  holder        VARCHAR(120) CHARACTER SET utf8mb4,
  lease_ms      BIGINT       NOT NULL,
  fencing_token BIGINT       NOT NULL,
  marked        INT
) ENGINE=MEMORY;
