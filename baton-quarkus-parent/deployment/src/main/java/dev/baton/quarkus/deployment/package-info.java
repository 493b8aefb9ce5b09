/** The build steps of Baton's Quarkus extension; not API. */
package dev.baton.quarkus.deployment;
