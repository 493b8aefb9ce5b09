package dev.baton.internal;

import dev.baton.Holder;
import dev.baton.LockAdmin;
import dev.baton.LockConfigurationException;
import dev.baton.LockInfo;
import dev.baton.LockOptions;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockNames;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link LockAdmin} over one backend: validation, and the log line that records every forced
 * release. The backend does the work ({@link LockBackend#list}, {@link LockBackend#forceRelease}).
 */
final class BackendAdmin implements LockAdmin {
    private static final Logger LOG = LoggerFactory.getLogger(LockAdmin.class);

    private final LockBackend backend;
    private final LockOptions options;

    BackendAdmin(LockBackend backend, LockOptions options) {
        this.backend = backend;
        this.options = options;
    }

    @Override
    public String backendName() {
        return backend.name();
    }

    @Override
    public List<LockInfo> locks(String prefix) {
        if (prefix == null) {
            throw new LockConfigurationException(
                    "Baton admin on " + backend.name() + ": prefix must not be null; give \"\" to list every lock");
        }
        return backend.list(prefix);
    }

    @Override
    public String listingMethod() {
        return backend.listingMethod();
    }

    @Override
    public Optional<LockInfo> status(String name) {
        LockNames.validate(name, backend.name());
        return backend.inspect(name);
    }

    @Override
    public List<LockInfo> forceRelease(String name) {
        return forceRelease(name, null, "every holder");
    }

    @Override
    public List<LockInfo> forceRelease(String name, String ownerId) {
        if (ownerId == null || ownerId.isBlank()) {
            throw new LockConfigurationException("Baton lock '" + name + "' on " + backend.name()
                    + ": the owner id to break must not be empty; take it from `baton locks`");
        }
        return forceRelease(name, ownerId, "owner " + ownerId);
    }

    private List<LockInfo> forceRelease(String name, String ownerId, String what) {
        LockNames.validate(name, backend.name());
        String by = HolderDescriptions.of(options.clientName(), Thread.currentThread());
        List<LockInfo> broken = backend.forceRelease(name, ownerId);
        if (broken.isEmpty()) {
            LOG.info("Baton forced release of '{}' ({}) on {} by {}: nothing was held", name, what, backend.name(), by);
        }
        for (LockInfo info : broken) {
            LOG.warn(
                    "Baton forced release of '{}' on {} by {}: broke the {} held by {}",
                    name,
                    backend.name(),
                    by,
                    info.kind().name().toLowerCase(java.util.Locale.ROOT),
                    info.holders().stream().map(BackendAdmin::describe).collect(Collectors.joining("; ")));
        }
        return broken;
    }

    static String describe(Holder holder) {
        return (holder.description().isEmpty() ? "an undescribed holder" : holder.description()) + " (owner "
                + holder.ownerId() + ", fencing token " + holder.fencingToken() + ")";
    }

    @Override
    public void close() {
        backend.close();
    }
}
