/**
 * Baton for Quarkus: a {@link dev.baton.LockClient} bean built from the {@code baton.*} properties,
 * {@link dev.baton.quarkus.Locked} methods, and {@link dev.baton.quarkus.LockOptionsCustomizer} beans
 * that adjust the client's options. See docs/frameworks/quarkus.md.
 */
package dev.baton.quarkus;
