/**
 * What every framework's {@code @Locked} shares. Applications use {@link dev.baton.locked.LockedContext}
 * and {@link dev.baton.locked.LockedTimeoutException} in their {@code @Locked} methods, whichever
 * framework runs them; the machinery ({@code dev.baton.locked.internal}) is for Baton's Spring Boot
 * starters and Quarkus extension only.
 */
// The starters and the extension are automatic modules (named in their manifests); the lint flags a
// qualified export to a module that is not in this build's module graph.
@SuppressWarnings("module")
module dev.baton.locked {
    requires transitive dev.baton.core;
    requires org.slf4j;

    exports dev.baton.locked;
    exports dev.baton.locked.internal to
            dev.baton.spring,
            dev.baton.quarkus;
}
