/**
 * What an application's {@code @Locked} methods use, under the Spring Boot starters ({@code
 * dev.baton.spring.Locked}) and the Quarkus extension ({@code dev.baton.quarkus.Locked}) alike: {@link
 * dev.baton.locked.LockedContext} gives the running method's lease and fencing token, and {@link
 * dev.baton.locked.LockedTimeoutException} is what a caller gets when the lock was not acquired in time.
 */
package dev.baton.locked;
