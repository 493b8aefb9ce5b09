/**
 * Not API: what Baton's Spring Boot starters and Quarkus extension share for {@code @Locked} and for
 * building the application's client. Exported to those modules only; it may change in any release.
 */
package dev.baton.locked.internal;
