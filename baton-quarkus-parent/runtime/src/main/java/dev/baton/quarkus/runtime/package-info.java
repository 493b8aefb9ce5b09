/**
 * The extension's configuration and the beans it adds when SmallRye Health or Micrometer is present;
 * not API: applications use {@code dev.baton.quarkus} and the {@code baton.*} properties.
 */
package dev.baton.quarkus.runtime;
