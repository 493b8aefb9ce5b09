package dev.baton.zookeeper;

import dev.baton.LockConfigurationException;
import dev.baton.LockOptions;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockBackendProvider;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;

/**
 * Builds the ZooKeeper lock backend for {@code zookeeper://} URIs; found by {@link
 * dev.baton.Baton#connect(String, LockOptions)} through {@link java.util.ServiceLoader}.
 *
 * <pre>
 * zookeeper://[user:password@]host1:2181,host2:2181[/chroot][?sessionTimeout=30s&amp;connectionTimeout=5s
 *     &amp;onSuspended=lose|wait&amp;acl=open|creator&amp;root=/baton/locks]
 * </pre>
 *
 * <ul>
 *   <li>Locks live at {@code <chroot><root>/<encoded name>}; the parents are container nodes, which
 *       the server removes when they are empty.
 *   <li>{@code sessionTimeout} (default 30 s): how long the server keeps a silent client's session,
 *       and with it its locks. The server clamps it to its {@code minSessionTimeout..maxSessionTimeout}
 *       (2..20 times its tick time by default), and what it negotiates, not what the URI asks for,
 *       bounds every lease: a lease is valid at most that long after ZooKeeper last answered this
 *       client, whatever its lease time. A lease time longer than the negotiated session timeout is
 *       accepted (the lease is renewed within the session timeout, and a pause or a lease without
 *       auto-renewal loses it after the session timeout), with one WARN per client naming both and
 *       the fix.
 *   <li>{@code connectionTimeout} (default: the operation timeout): how long one call waits for a
 *       connection.
 *   <li>{@code onSuspended}: {@code lose} (default, safe) reports every held lease lost as soon as
 *       the connection drops; {@code wait} keeps them while the session may still be alive and
 *       reports loss only when the session is lost.
 *   <li>Credentials in the URI authenticate with the {@code digest} scheme; with them the nodes Baton
 *       creates get the creator-only ACL unless {@code acl=open}.
 *   <li>{@code root} (default {@code /baton/locks}): the parent of every lock path, inside the
 *       chroot.
 * </ul>
 *
 * <p>No parameter chooses the wire form: it follows the kind of lock asked for. {@code lock(name)}
 * writes Curator InterProcessMutex nodes, {@code readWriteLock(name)} Curator InterProcessReadWriteLock
 * nodes, so each interoperates with that Curator recipe on the path {@code <root>/<encoded name>}. The
 * parameter {@code exclusiveNodes} of earlier versions is refused with a message saying so.
 *
 * <p>{@code semaphore(name, permits)} writes Curator InterProcessSemaphoreV2 nodes at {@code
 * <chroot><root>/~semaphores/<encoded name>} (a path no lock name maps to), so {@code new
 * InterProcessSemaphoreV2(client, "<root>/~semaphores/<name>", permits)} shares the permits with
 * Baton, for example {@code /baton/locks/~semaphores/exports} for the semaphore {@code exports} with
 * the default root. Curator keeps no count; Baton records it in that node's data and refuses a Baton
 * client with another count, while a Curator client must be given the same count by its user.
 *
 * <p>{@link #create} does no I/O: the connection is made in the background, and an unreachable
 * ensemble shows up as {@link dev.baton.LockUnavailableException} on first use, within the operation
 * timeout.
 */
public final class ZooKeeperLockBackendProvider implements LockBackendProvider {

    /** Used by {@link java.util.ServiceLoader}. */
    public ZooKeeperLockBackendProvider() {}

    @Override
    public Set<String> schemes() {
        return Set.of(ZooKeeperUri.SCHEME);
    }

    /**
     * Builds the backend and starts connecting in the background.
     *
     * @throws LockConfigurationException for a malformed URI or an unknown or invalid parameter
     */
    @Override
    public LockBackend create(String uri, LockOptions options) {
        ZooKeeperUri parsed = ZooKeeperUri.parse(uri);
        Duration connection =
                parsed.connectionTimeout() != null ? parsed.connectionTimeout() : options.operationTimeout();
        CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
                .connectString(parsed.connectString())
                // A Curator namespace rather than a ZooKeeper chroot: Curator creates it when missing.
                .namespace(parsed.chroot().isEmpty() ? null : parsed.chroot().substring(1))
                .sessionTimeoutMs(toIntMillis(parsed.sessionTimeout()))
                .connectionTimeoutMs(toIntMillis(connection))
                // Baton retries connection losses itself, within the operation timeout, and protects
                // creates by their prefix; Curator must not retry on its own.
                .retryPolicy(new RetryNTimes(0, 0))
                .ensembleTracker(false);
        if (parsed.digest() != null) {
            builder.authorization("digest", parsed.digest().getBytes(StandardCharsets.UTF_8));
        }
        if (parsed.creatorOnlyAcl()) {
            List<ACL> creatorOnly = ZooDefs.Ids.CREATOR_ALL_ACL;
            builder.aclProvider(new ACLProvider() {
                @Override
                public List<ACL> getDefaultAcl() {
                    return creatorOnly;
                }

                @Override
                public List<ACL> getAclForPath(String path) {
                    return creatorOnly;
                }
            });
        }
        CuratorFramework curator = builder.build();
        curator.start();
        return new ZooKeeperLockBackend(parsed, options, curator);
    }

    private static int toIntMillis(Duration duration) {
        return (int) Math.min(Integer.MAX_VALUE, Math.max(1, duration.toMillis()));
    }
}
