-- Baton JDBC "pessimistic" strategy, PostgreSQL. Safe to run more than once.
-- One row per lock name, created on first use and never deleted. A holder keeps the row locked
-- (SELECT ... FOR UPDATE, FOR SHARE for readers) in a transaction held open for the lease;
-- waiters queue on that row lock inside the database.
CREATE TABLE IF NOT EXISTS ${table}_pess (
  lock_name     VARCHAR(512) NOT NULL PRIMARY KEY
);
-- Fencing tokens: sequences are not transactional, so a token drawn by a holder whose transaction
-- is later rolled back (its connection broke) is never handed out again.
CREATE SEQUENCE IF NOT EXISTS ${table}_pess_seq;
