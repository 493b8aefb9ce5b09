package dev.baton.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockKind;
import dev.baton.LockOptions;
import dev.baton.jdbc.row.BatchRenewal;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import dev.baton.tck.KitTime;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the kit's Semaphores suite (run on every JDBC fixture) does not look at: a strategy's {@code
 * renewAll} with lock and permit grants mixed in one call (one batch statement for the permits, the
 * strategy's own for the locks; a lost permit told apart from the renewed ones), and the mismatch
 * message's fix. On H2 only, to stay fast: its two strategies are the ones that batch renewals, and
 * the permits' batch statement has the shape of the locks' ({@link BatchRenewal}), which runs on all
 * three databases.
 */
class JdbcSemaphoreTest {
    private static final String H2 = "jdbc:h2:mem:sem-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    private static final Duration WAIT = KitTime.grant();
    private static Connection keepH2;

    /** One strategy on H2, with a table prefix of its own. */
    record Target(String strategy) {
        String table() {
            return "sem_" + strategy;
        }

        String uri() {
            return H2 + ";USER=sa;PASSWORD=;strategy=" + strategy + ";table=" + table();
        }

        @Override
        public String toString() {
            return strategy + " on H2";
        }
    }

    @BeforeAll
    static void keepTheDatabase() throws SQLException {
        keepH2 = DriverManager.getConnection(H2, "sa", "");
    }

    @AfterAll
    static void dropTheDatabase() throws SQLException {
        keepH2.close();
    }

    static Stream<Target> h2() {
        return Stream.of(new Target("table"));
    }

    private static LockOptions options(Duration lease, boolean autoRenew) {
        return LockOptions.builder()
                .leaseTime(lease)
                .autoRenew(autoRenew)
                .operationTimeout(Duration.ofSeconds(5))
                .pollInitialDelay(Duration.ofMillis(5))
                .pollMaxDelay(Duration.ofMillis(50))
                .build();
    }

    private static String name() {
        return "s-" + UUID.randomUUID();
    }

    @ParameterizedTest
    @MethodSource("h2")
    void locksAndPermitsAreRenewedTogetherAndALostPermitIsToldApart(Target target) throws Exception {
        try (LockBackend backend =
                new JdbcLockBackendProvider().create(target.uri(), options(Duration.ofSeconds(30), true))) {
            String name = name();
            Duration lease = Duration.ofSeconds(30);
            Grant lock = backend.tryAcquire(LockRequest.builder(name, owner(), LockKind.MUTEX, lease)
                            .build())
                    .orElseThrow();
            Grant first = backend.tryAcquire(LockRequest.builder(name, owner(), LockKind.PERMIT, lease)
                            .permits(2)
                            .build())
                    .orElseThrow();
            Grant second = backend.tryAcquire(LockRequest.builder(name, owner(), LockKind.PERMIT, lease)
                            .permits(2)
                            .build())
                    .orElseThrow();
            assertThat(backend.tryAcquire(LockRequest.builder(name, owner(), LockKind.PERMIT, lease)
                            .permits(2)
                            .build()))
                    .as("a third permit of two, although a lock of the same name is held too")
                    .isEmpty();
            assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());

            List<Grant> mixed = List.of(first, lock, second);
            assertThat(backend.renewAll(mixed, lease))
                    .allSatisfy(renewed -> assertThat(renewed).isPresent());

            assertThat(backend.release(first)).isTrue();
            List<Optional<Grant>> afterRelease = backend.renewAll(mixed, lease);
            assertThat(afterRelease.get(0)).as("the released permit").isEmpty();
            assertThat(afterRelease.get(1)).as("the lock").isPresent();
            assertThat(afterRelease.get(2)).as("the other permit").isPresent();
            assertThat(backend.release(first)).as("released twice").isFalse();
            assertThat(backend.release(second)).isTrue();
            assertThat(backend.release(lock)).isTrue();
        }
    }

    @ParameterizedTest
    @MethodSource("h2")
    void aMismatchedCountFailsNamingBothCountsAndTheFix(Target target) {
        String name = name();
        try (LockClient client = Baton.connect(target.uri(), options(Duration.ofSeconds(30), true))) {
            client.semaphore(name, 3).tryAcquire().orElseThrow().close();
            assertThatThrownBy(() -> client.semaphore(name, 4).acquire(WAIT))
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("'" + name + "'")
                    .hasMessageContaining(client.backendName())
                    .hasMessageContaining("has 3 permits")
                    .hasMessageContaining("asks for 4")
                    .hasMessageContaining("UPDATE " + target.table() + "_semaphores SET permits = 4");
            assertThat(permitRows(target, name)).isZero();
        }
    }

    private static String owner() {
        return UUID.randomUUID().toString().replace("-", "");
    }

    /** Rows in the target's permits table for {@code name}, read directly. */
    private static int permitRows(Target target, String name) {
        try (Connection admin = DriverManager.getConnection(H2, "sa", "");
                PreparedStatement ps = admin.prepareStatement(
                        "SELECT COUNT(*) FROM " + target.table() + "_permits WHERE semaphore_name = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }
}
