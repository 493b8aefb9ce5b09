package dev.baton.test;

import dev.baton.LockConfigurationException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The {@code mem://} backend, for an application's own tests: locks that live in the memory of this
 * JVM, with every primitive of a server backend (locks, read/write locks, semaphores, multi-locks,
 * leadership, fencing tokens, fair hand-off, holder descriptions, {@link dev.baton.LockAdmin}) and the
 * same contract, checked by the same conformance kit. Put {@code dev.baton:baton-test} on the test
 * class path and connect as to any backend:
 *
 * <pre>{@code
 * LockClient client = Baton.connect("mem://app");
 * MemFaults faults = MemLocks.faults("app"); // lose a lease, stall renewals, cut the backend off
 * }</pre>
 *
 * <p>A namespace ({@code app} above) is one lock server: the clients of one namespace in one JVM share
 * its locks; those of different namespaces never meet. It is made on first use and lives as long as
 * the JVM ({@link MemLocksExtension} gives each test one of its own and forgets it afterwards). Its
 * fencing tokens increase strictly across all its grants, so per name too; grants run out on the
 * namespace's clock, which a test can move ({@link MemFaults#advanceClock}). Another JVM reaches a
 * namespace through {@link #serve}.
 *
 * <p>A namespace name is 1 to 100 letters, digits, {@code .}, {@code _} or {@code -}. The URI takes no
 * options besides {@code clientName}.
 */
public final class MemLocks {
    private static final Pattern NAMESPACE = Pattern.compile("[A-Za-z0-9._-]{1,100}");
    private static final Map<String, MemNamespace> NAMESPACES = new ConcurrentHashMap<>();

    private MemLocks() {}

    /**
     * The fault controller of a namespace, made if it is new.
     *
     * @param namespace the namespace's name, as in {@code mem://<namespace>}
     * @return its faults; the same object for the same namespace until it is forgotten
     * @throws LockConfigurationException if the name is not a valid namespace name
     */
    public static MemFaults faults(String namespace) {
        return namespace(namespace).faults;
    }

    /**
     * Serves a namespace to other JVMs, on a free port of the loopback interface: their clients
     * connect with {@link MemLockServer#uri()} and share its locks with this JVM's clients of {@code
     * mem://<namespace>}. For tests whose application runs in several processes.
     *
     * @param namespace the namespace to serve, made if it is new
     * @return the running server; close it to stop serving
     * @throws LockConfigurationException if the name is not a valid namespace name
     * @throws java.io.UncheckedIOException if no port can be bound
     */
    public static MemLockServer serve(String namespace) {
        return MemLockServer.start(namespace(namespace));
    }

    /**
     * The URI of a namespace in this JVM.
     *
     * @param namespace the namespace's name
     * @return {@code mem://<namespace>}
     * @throws LockConfigurationException if the name is not a valid namespace name
     */
    public static String uri(String namespace) {
        return "mem://" + validate(namespace, "mem://" + namespace);
    }

    static MemNamespace namespace(String name) {
        validate(name, "mem://" + name);
        return NAMESPACES.computeIfAbsent(name, MemNamespace::new);
    }

    /** Forgets a namespace: the next client of its name starts a new one. Its current clients keep the old. */
    static void forget(String name) {
        NAMESPACES.remove(name);
    }

    static String validate(String namespace, String uri) {
        if (namespace == null || !NAMESPACE.matcher(namespace).matches()) {
            throw new LockConfigurationException("Baton mem URI '" + uri + "': the namespace " + namespace
                    + " is not 1 to 100 letters, digits, '.', '_' or '-'; give one such as mem://app");
        }
        return namespace;
    }
}
