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
