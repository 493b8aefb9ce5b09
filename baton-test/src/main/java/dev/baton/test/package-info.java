/**
 * For an application's own tests: the {@code mem://} backend ({@link dev.baton.test.MemLocks}), which
 * keeps locks in this JVM's memory and passes the whole conformance kit; its fault controller ({@link
 * dev.baton.test.MemFaults}), which loses leases, stalls or refuses renewals, cuts the backend off and
 * moves its clock; {@link dev.baton.test.MemLocksExtension}, which gives each JUnit 5 test a client of
 * a namespace of its own; and {@link dev.baton.test.MemLockServer}, which serves a namespace to other
 * JVMs of the same test. How to use them: {@code docs/testing.md}.
 */
package dev.baton.test;
