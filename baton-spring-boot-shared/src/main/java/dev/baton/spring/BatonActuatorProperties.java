package dev.baton.spring;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code baton.actuator.*} properties of the {@code locks} Actuator endpoint ({@link
 * BatonLocksEndpoint}). Kept apart from {@link BatonProperties}: they configure the operations
 * console, not the client.
 */
@ConfigurationProperties(prefix = "baton.actuator")
public class BatonActuatorProperties {

    /**
     * Whether the endpoint's forced release (POST /actuator/locks) may break a holder's lock. Off by
     * default; when on, the endpoint also needs write access
     * (management.endpoint.locks.access=unrestricted).
     */
    private boolean releaseEnabled = false;

    /**
     * Whether the forced release is enabled.
     *
     * @return the value of {@code baton.actuator.release-enabled}, false by default
     */
    public boolean isReleaseEnabled() {
        return releaseEnabled;
    }

    /**
     * Enables or disables the forced release.
     *
     * @param releaseEnabled the value of {@code baton.actuator.release-enabled}
     */
    public void setReleaseEnabled(boolean releaseEnabled) {
        this.releaseEnabled = releaseEnabled;
    }
}
