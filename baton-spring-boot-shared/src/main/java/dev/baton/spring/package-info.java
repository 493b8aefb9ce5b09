/**
 * Spring Boot support for Baton: {@link dev.baton.spring.BatonAutoConfiguration} (a {@link
 * dev.baton.LockClient} bean from the {@code baton.*} properties), {@link dev.baton.spring.Locked}
 * methods (their lease in {@link dev.baton.locked.LockedContext}, shared with the Quarkus extension),
 * and the {@code baton} health indicator.
 */
package dev.baton.spring;
