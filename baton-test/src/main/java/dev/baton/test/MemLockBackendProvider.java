package dev.baton.test;

import dev.baton.LockConfigurationException;
import dev.baton.LockOptions;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockBackendProvider;
import dev.baton.spi.UriOptions;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Makes {@code mem://} backends ({@link MemLocks}): {@code mem://<namespace>} for a namespace of this
 * JVM, and {@code mem://<host>:<port>/<namespace>} for one that another JVM serves ({@link
 * MemLockServer#uri()}). The URI takes no options of its own ({@code clientName} and {@code fair} are the
 * core's); anything else,
 * or a malformed URI, is refused with {@link LockConfigurationException} naming the fix. Creating a
 * backend never blocks: a served namespace is connected on first use.
 */
public final class MemLockBackendProvider implements LockBackendProvider {
    private static final Pattern SERVED =
            Pattern.compile("mem://([^/:?]+):(\\d{1,5})/([^/?]*)", Pattern.CASE_INSENSITIVE);
    private static final Pattern LOCAL = Pattern.compile("mem://([^/:?]*)", Pattern.CASE_INSENSITIVE);

    /** Made by {@link java.util.ServiceLoader}. */
    public MemLockBackendProvider() {}

    @Override
    public Set<String> schemes() {
        return Set.of("mem");
    }

    @Override
    public LockBackend create(String uri, LockOptions options) {
        if (uri == null || options == null) {
            throw new LockConfigurationException("Baton mem: the URI and the options must not be null");
        }
        int query = uri.indexOf('?');
        if (query >= 0) {
            // The core took clientName and fair out already: whatever is left is not an option of mem://.
            String first = uri.substring(query + 1).split("[&=]", 2)[0];
            throw new LockConfigurationException(
                    "Baton mem URI '" + uri + "': " + UriOptions.unknown(first, List.of()));
        }
        Matcher served = SERVED.matcher(uri);
        if (served.matches()) {
            String namespace = MemLocks.validate(served.group(3), uri);
            int port = Integer.parseInt(served.group(2));
            if (port < 1 || port > 65535) {
                throw new LockConfigurationException(
                        "Baton mem URI '" + uri + "': port " + port + " is not between 1 and 65535");
            }
            return new MemRemoteBackend(served.group(1), port, namespace, options);
        }
        Matcher local = LOCAL.matcher(uri);
        if (local.matches()) {
            String namespace = MemLocks.validate(local.group(1), uri);
            return new MemLockBackend(MemLocks.namespace(namespace), "mem (" + namespace + ")", options);
        }
        throw new LockConfigurationException("Baton mem URI '" + uri
                + "' is malformed; give mem://<namespace> for this JVM, or mem://<host>:<port>/<namespace> for a"
                + " namespace another JVM serves (MemLocks.serve)");
    }
}
