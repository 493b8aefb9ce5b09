package dev.baton.check;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.support.CloseableClient;
import io.grpc.stub.StreamObserver;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * jetcd's Lock service (the server's v3lock) as a check subject: the holder's key lives on an etcd
 * lease of the check's lease time (in whole seconds, at least 1) that jetcd keeps alive. Its token is
 * the create revision of the lock key (etcd grants the lock in that order). The holder learns of a
 * loss from its lease: the keep-alive stream's error (jetcd reports an expired or revoked lease so)
 * or the lease's time to live running out since the last keep-alive answer.
 *
 * <p>A waiter that gives up revokes its lease, as etcd's own client does when a lock call is
 * cancelled: otherwise its queued key would be granted later to nobody, and block the lock until the
 * lease expired. The next acquire grants a new lease.
 */
final class JetcdSubject implements ClientSubject {
    private final Client etcd;
    private final long ttlSeconds;
    private final Duration callTimeout;
    private Lease lease;

    private JetcdSubject(Client etcd, Duration leaseTime) {
        this.etcd = etcd;
        this.ttlSeconds = Math.max(1, (leaseTime.toMillis() + 999) / 1000);
        this.callTimeout = leaseTime;
    }

    /** @param uri Baton's etcd URI, {@code etcd://host:port,...[/prefix][?...]} */
    static ClientSubject create(String uri, Duration leaseTime) {
        String authority = URI.create(uri).getAuthority();
        Client etcd = Client.builder()
                .endpoints(Arrays.stream(authority.split(","))
                        .map(e -> "http://" + e.trim())
                        .toArray(String[]::new))
                .build();
        return new JetcdSubject(etcd, leaseTime);
    }

    @Override
    public Optional<Hold> acquire(String lock, Duration timeout, Runnable onLost) {
        try {
            if (lease == null || lease.lost()) {
                if (lease != null) {
                    lease.close();
                }
                lease = grant();
            }
            Lease mine = lease;
            ByteSequence key;
            try {
                key = etcd.getLockClient()
                        .lock(bytes("/jetcd-check/" + lock), mine.id)
                        .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
                        .getKey();
            } catch (TimeoutException e) {
                lease = null;
                mine.revoke(callTimeout);
                return Optional.empty();
            }
            mine.holding(onLost);
            List<KeyValue> kvs = etcd.getKVClient()
                    .get(key)
                    .get(callTimeout.toMillis(), TimeUnit.MILLISECONDS)
                    .getKvs();
            long token = 0;
            if (kvs.isEmpty()) {
                mine.lose(); // the key went with the lease since the grant
            } else {
                token = kvs.get(0).getCreateRevision();
            }
            long revision = token;
            return Optional.of(new Hold() {
                @Override
                public long token() {
                    return revision;
                }

                @Override
                public boolean knownLost() {
                    return mine.lost();
                }

                @Override
                public void release() {
                    mine.holding(null);
                    try {
                        etcd.getLockClient().unlock(key).get(callTimeout.toMillis(), TimeUnit.MILLISECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } catch (ExecutionException | TimeoutException e) {
                        // etcd unreachable: the key goes with the lease
                    }
                }
            });
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("jetcd lock: " + e, e);
        }
    }

    private Lease grant() throws InterruptedException, ExecutionException, TimeoutException {
        long id = etcd.getLeaseClient()
                .grant(ttlSeconds)
                .get(callTimeout.toMillis(), TimeUnit.MILLISECONDS)
                .getID();
        Lease granted = new Lease(id, ttlSeconds);
        granted.keepAlive = etcd.getLeaseClient().keepAlive(id, granted);
        return granted;
    }

    @Override
    public void close() {
        if (lease != null) {
            lease.close();
        }
        etcd.close();
    }

    private static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    /** One etcd lease kept alive by jetcd, and what its holder was told about it. */
    private final class Lease implements StreamObserver<LeaseKeepAliveResponse> {
        final long id;
        private volatile long expiresAt;
        private volatile boolean failed;
        private Runnable onLost;
        CloseableClient keepAlive;

        Lease(long id, long ttlSeconds) {
            this.id = id;
            this.expiresAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(ttlSeconds);
        }

        boolean lost() {
            if (!failed && System.nanoTime() - expiresAt > 0) {
                lose(); // no keep-alive answer within the time to live: the lease is gone
            }
            return failed;
        }

        synchronized void holding(Runnable onLost) {
            this.onLost = onLost;
        }

        synchronized void lose() {
            failed = true;
            if (onLost != null) {
                onLost.run();
                onLost = null;
            }
        }

        @Override
        public void onNext(LeaseKeepAliveResponse response) {
            if (response.getTTL() <= 0) {
                lose();
            } else {
                expiresAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(response.getTTL());
            }
        }

        @Override
        public void onError(Throwable t) {
            lose(); // jetcd's way of saying the lease expired or was revoked
        }

        @Override
        public void onCompleted() {
            lose();
        }

        void revoke(Duration timeout) {
            close();
            try {
                etcd.getLeaseClient().revoke(id).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                // unreachable: the lease and its queued key expire on their own
            }
        }

        void close() {
            if (keepAlive != null) {
                keepAlive.close();
            }
        }
    }
}
