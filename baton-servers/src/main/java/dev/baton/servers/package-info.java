/**
 * Real database servers for tests, the CLI and benchmarks: {@link dev.baton.servers.H2Server} and
 * {@link dev.baton.servers.PostgresServer}, both {@link dev.baton.servers.DatabaseServer}s that
 * start on a free loopback port and clean up after themselves on {@code close()}.
 */
package dev.baton.servers;
