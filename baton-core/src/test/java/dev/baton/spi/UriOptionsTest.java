package dev.baton.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Every backend words an unknown URI option alike: the nearest name it takes, then all of them. */
class UriOptionsTest {
    private static final List<String> JDBC = List.of("strategy", "table", "createSchema", "advisoryHolders");

    @Test
    void aMisspeltNameIsOfferedTheNearestOne() {
        assertThat(UriOptions.closest("stratgy", JDBC)).contains("strategy");
        assertThat(UriOptions.closest("CREATESCHEMA", JDBC)).contains("createSchema");
        assertThat(UriOptions.closest("fiar", JDBC)).as("a swap is one edit").contains("fair");
        assertThat(UriOptions.closest("clientname", JDBC)).contains("clientName");
        assertThat(UriOptions.unknown("stratgy", JDBC))
                .isEqualTo("unknown option 'stratgy' (did you mean 'strategy'?); the options are advisoryHolders,"
                        + " clientName, createSchema, fair, strategy, table");
    }

    @Test
    void aNameFarFromEveryOptionIsNotGuessed() {
        assertThat(UriOptions.closest("sslmode", JDBC)).isEmpty();
        assertThat(UriOptions.closest("MODE", JDBC)).isEmpty();
        assertThat(UriOptions.closest("currentSchema", JDBC)).isEmpty();
        assertThat(UriOptions.unknown("xyz", List.of("root")))
                .isEqualTo("unknown option 'xyz'; the options are clientName, fair, root");
    }

    @Test
    void aLockOptionIsToldWhereItIsSet() {
        assertThat(UriOptions.unknown("leaseTime", JDBC))
                .isEqualTo("'leaseTime' is not a URI option: leaseTime is one of the client's LockOptions; set it with"
                        + " LockOptions.builder().leaseTime(...) (baton.lease-time in Spring Boot)");
        assertThat(UriOptions.unknown("leaseTme", JDBC))
                .startsWith("'leaseTme' is not a URI option (did you mean 'leaseTime'?)");
        assertThat(UriOptions.lockOption("operationtimeout")).contains("operationTimeout");
        assertThat(UriOptions.lockOption("table")).isEmpty();
    }

    @Test
    void editsCountInsertionsDeletionsReplacementsAndSwaps() {
        assertThat(UriOptions.distance("table", "table")).isZero();
        assertThat(UriOptions.distance("tabel", "table")).isEqualTo(1);
        assertThat(UriOptions.distance("tables", "table")).isEqualTo(1);
        assertThat(UriOptions.distance("cable", "table")).isEqualTo(1);
        assertThat(UriOptions.distance("", "abc")).isEqualTo(3);
    }

    @Test
    void anOptionJoinsAUriInItsOwnSyntax() {
        assertThat(UriOptions.with("jdbc:h2:mem:x;MODE=PostgreSQL", "table", "t"))
                .isEqualTo("jdbc:h2:mem:x;MODE=PostgreSQL;table=t");
        assertThat(UriOptions.with("jdbc:postgresql://db/app", "table", "t"))
                .isEqualTo("jdbc:postgresql://db/app?table=t");
        assertThat(UriOptions.with("redis-sentinel://s:26379?timeout=2s#m", "prefix", "a:"))
                .isEqualTo("redis-sentinel://s:26379?timeout=2s&prefix=a%3A#m");
        assertThat(UriOptions.has("jdbc:h2:mem:x;TABLE=a", "table")).isTrue();
        assertThat(UriOptions.has("redis://h?prefix=a#table=b", "table")).isFalse();
        assertThat(UriOptions.has("redis://h?prefix=a", "table")).isFalse();
    }
}
