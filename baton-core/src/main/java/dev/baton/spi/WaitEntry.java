package dev.baton.spi;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/** {@link WaitQueue.Entry#of}: an entry made of a backend's calls. */
final class WaitEntry implements WaitQueue.Entry {
    private final Optional<Grant> grantedOnEntry;
    private final Supplier<Optional<Grant>> attempt;
    private final Runnable leave;

    WaitEntry(Optional<Grant> grantedOnEntry, Supplier<Optional<Grant>> attempt, Runnable leave) {
        this.grantedOnEntry = Objects.requireNonNull(grantedOnEntry, "grantedOnEntry");
        this.attempt = Objects.requireNonNull(attempt, "attempt");
        this.leave = Objects.requireNonNull(leave, "leave");
    }

    @Override
    public Optional<Grant> grantedOnEntry() {
        return grantedOnEntry;
    }

    @Override
    public Optional<Grant> attempt() {
        return attempt.get();
    }

    @Override
    public void leave() {
        leave.run();
    }
}
