-- Baton JDBC "advisory" strategy, PostgreSQL. Safe to run more than once.
-- The lock itself is a session advisory lock and needs no table. Fencing tokens come from this
-- sequence, drawn while the lock is held, so they strictly increase per lock name (and across
-- names). A sequence is not transactional and writes WAL only every 32 values, so drawing a token
-- costs a grant no row write and no commit flush; a crash never hands a value out again.
CREATE SEQUENCE IF NOT EXISTS ${table}_adv_seq;
