/**
 * Spring Boot support for Baton: {@link dev.baton.spring.BatonAutoConfiguration} (a {@link
 * dev.baton.LockClient} bean from the {@code baton.*} properties), {@link dev.baton.spring.Locked}
 * methods with {@link dev.baton.spring.LockedContext}, and the {@code baton} health indicator.
 */
package dev.baton.spring;
