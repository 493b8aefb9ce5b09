package dev.baton.jdbc;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.tck.KitTime;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;

/**
 * A second process on an H2 file database, for {@link JdbcConnectFailuresTest}: opens the URL given
 * as its first argument (with Baton and a held lock named by the second argument, if any), prints
 * {@code ready}, and keeps it open until its standard input closes.
 */
public final class H2FileHolder {
    private H2FileHolder() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 1) {
            try (LockClient client = Baton.connect(args[0]);
                    Lease lease = client.lock(args[1]).acquire(KitTime.COLD_START)) {
                holdUntilStdinCloses(lease.fencingToken());
            }
        } else {
            try (Connection connection = DriverManager.getConnection(args[0], "sa", "")) {
                holdUntilStdinCloses(connection.hashCode());
            }
        }
    }

    private static void holdUntilStdinCloses(long what) throws IOException {
        System.out.println("ready " + what);
        System.out.flush();
        while (System.in.read() >= 0) {
            // hold until the parent closes our input
        }
    }
}
