package dev.baton.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.LockConfigurationException;
import dev.baton.LockOptions;
import dev.baton.jdbc.internal.Dialect;
import dev.baton.jdbc.internal.JdbcFailures;
import dev.baton.jdbc.internal.TableNames;
import java.util.List;
import org.junit.jupiter.api.Test;

class LockUrlTest {

    @Test
    void postgresBatonParametersAreStrippedAndTheDriversKept() {
        LockUrl url = LockUrl.parse("jdbc:postgresql://db:5432/app?user=app&strategy=table&password=s%26cret"
                + "&table=app.my_locks&ssl=true&createSchema=false");

        assertThat(url.driverUrl()).isEqualTo("jdbc:postgresql://db:5432/app?user=app&password=s%26cret&ssl=true");
        assertThat(url.dialect()).isEqualTo(Dialect.POSTGRESQL);
        assertThat(url.tables())
                .isEqualTo(new TableNames("app.my_locks", "app.my_locks_readers", "app.my_locks_fencing_seq"));
        assertThat(url.createSchema()).isFalse();
    }

    @Test
    void postgresWithOnlyBatonParametersLosesTheQuestionMark() {
        LockUrl url = LockUrl.parse("jdbc:postgresql://db/app?table=locks&createSchema=TRUE");

        assertThat(url.driverUrl()).isEqualTo("jdbc:postgresql://db/app");
        assertThat(url.tables().locks()).isEqualTo("locks");
        assertThat(url.createSchema()).isTrue();
    }

    @Test
    void h2SettingsAreStrippedCaseInsensitivelyAndTheRestKeptInOrder() {
        LockUrl url = LockUrl.parse(
                "jdbc:h2:mem:x;DB_CLOSE_DELAY=-1;STRATEGY=table;USER=sa;Table=h2_locks;PASSWORD=x;createschema=false");

        assertThat(url.driverUrl()).isEqualTo("jdbc:h2:mem:x;DB_CLOSE_DELAY=-1;USER=sa;PASSWORD=x");
        assertThat(url.dialect()).isEqualTo(Dialect.H2);
        assertThat(url.tables().locks()).isEqualTo("h2_locks");
        assertThat(url.tables().readers()).isEqualTo("h2_locks_readers");
        assertThat(url.tables().sequence()).isEqualTo("h2_locks_fencing_seq");
        assertThat(url.createSchema()).isFalse();
    }

    @Test
    void h2EscapedSemicolonsStayInsideTheirSetting() {
        String init = "INIT=CREATE SCHEMA IF NOT EXISTS a\\;SET SCHEMA a";
        LockUrl url = LockUrl.parse("jdbc:h2:mem:x;" + init + ";table=a.locks");

        assertThat(url.driverUrl()).isEqualTo("jdbc:h2:mem:x;" + init);
        assertThat(url.tables().locks()).isEqualTo("a.locks");
    }

    @Test
    void defaultsWithoutBatonParameters() {
        LockUrl url = LockUrl.parse("jdbc:h2:mem:plain");

        assertThat(url.driverUrl()).isEqualTo("jdbc:h2:mem:plain");
        assertThat(url.tables()).isEqualTo(TableNames.defaults());
        assertThat(url.tables().locks()).isEqualTo("baton_locks");
        assertThat(url.createSchema()).isTrue();
    }

    @Test
    void unknownStrategyListsTheAvailableOnes() {
        assertThatThrownBy(() -> LockUrl.parse("jdbc:postgresql://db/app?strategy=magic&password=topsecret"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("strategy 'magic'")
                .hasMessageContaining("table, pessimistic, advisory")
                .hasMessageNotContaining("topsecret");
    }

    @Test
    void strategiesAreChosenByParameterAndCheckedAgainstTheDialect() {
        assertThat(LockUrl.parse("jdbc:h2:mem:x;STRATEGY=optimistic").strategy())
                .isEqualTo(Strategy.TABLE);
        assertThat(LockUrl.parse("jdbc:postgresql://db/app?strategy=ADVISORY").strategy())
                .isEqualTo(Strategy.ADVISORY);
        assertThat(LockUrl.parse("jdbc:postgresql://db/app").strategy()).isEqualTo(Strategy.TABLE);
        assertThat(LockUrl.parse("jdbc:postgresql://db/app?strategy=advisory").advisoryHolders())
                .isFalse();
        assertThat(LockUrl.parse("jdbc:postgresql://db/app?strategy=advisory&advisoryHolders=true")
                        .advisoryHolders())
                .isTrue();
        assertThatThrownBy(() -> LockUrl.parse("jdbc:postgresql://db/app?advisoryHolders=yes"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("advisoryHolders must be true or false");
        assertThat(LockUrl.parse("jdbc:mariadb://db/app?strategy=advisory").strategy())
                .isEqualTo(Strategy.ADVISORY);
        assertThat(LockUrl.parse("jdbc:mariadb://db/app?strategy=table").strategy())
                .isEqualTo(Strategy.TABLE);
        assertThatThrownBy(() -> LockUrl.parse("jdbc:h2:mem:x;strategy=advisory;PASSWORD=topsecret"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("the advisory strategy does not support H2")
                .hasMessageContaining("it supports PostgreSQL, MariaDB")
                .hasMessageContaining("(table work on H2)")
                .hasMessageNotContaining("topsecret");
    }

    @Test
    void badTableNamesAreRejected() {
        for (String bad : List.of(
                "1locks", "locks;drop", "a.b.c", "lock-s", "\"quoted\"", "x".repeat(52), "schema.", "locks%20x")) {
            assertThatThrownBy(() -> LockUrl.parse("jdbc:postgresql://db/app?table=" + bad), bad)
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("table name")
                    .hasMessageContaining("letters, digits or underscores");
        }
        assertThat(TableNames.of("x".repeat(51)).sequence()).hasSize(63);
    }

    @Test
    void otherBadParametersAreRejected() {
        assertThatThrownBy(() -> LockUrl.parse("jdbc:h2:mem:x;createSchema=yes"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("createSchema must be true or false but was 'yes'");
        assertThatThrownBy(() -> LockUrl.parse("jdbc:h2:mem:x;table=a;TABLE=b"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("more than once");
        assertThatThrownBy(() -> LockUrl.parse("jdbc:postgresql://db/app?table="))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("has no value");
        assertThatThrownBy(() -> LockUrl.parse("jdbc:mysql://db/app"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("jdbc:h2, jdbc:postgresql and jdbc:mariadb");
        assertThatThrownBy(() -> LockUrl.parse(" "))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("empty");
    }

    @Test
    void theOptionsEveryUriTakesNeverReachTheDriver() {
        LockUrl h2 = LockUrl.parse("jdbc:h2:mem:x;fair=false;DB_CLOSE_DELAY=-1;CLIENTNAME=billing");
        assertThat(h2.driverUrl()).isEqualTo("jdbc:h2:mem:x;DB_CLOSE_DELAY=-1");
        LockUrl postgres = LockUrl.parse("jdbc:postgresql://db/app?fair=FALSE&ssl=true&clientName=b");
        assertThat(postgres.driverUrl()).isEqualTo("jdbc:postgresql://db/app?ssl=true");
    }

    @Test
    void aMisspeltOptionIsRefusedWithTheNearestName() {
        assertThatThrownBy(() -> LockUrl.parse("jdbc:postgresql://db/app?user=u&stratgy=advisory"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageStartingWith("Baton JDBC URL jdbc:postgresql://db/app?user=u&stratgy=advisory: unknown"
                        + " option 'stratgy' (did you mean 'strategy'?); the options are advisoryHolders, clientName,"
                        + " createSchema, fair, strategy, table");
        assertThatThrownBy(() -> LockUrl.parse("jdbc:mariadb://db/app?createSchemas=false"))
                .hasMessageContaining("did you mean 'createSchema'?");
        assertThatThrownBy(() -> LockUrl.parse("jdbc:h2:mem:x;DB_CLOSE_DELAY=-1;TABEL=app_locks"))
                .hasMessageContaining("unknown option 'TABEL' (did you mean 'table'?)");
        assertThatThrownBy(() -> LockUrl.parse("jdbc:h2:mem:x;fiar=false"))
                .hasMessageContaining("did you mean 'fair'?");
    }

    @Test
    void aLockOptionInTheUrlIsToldWhereItIsSet() {
        assertThatThrownBy(() -> LockUrl.parse("jdbc:h2:./bad;leaseTime=10s"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("'leaseTime' is not a URI option")
                .hasMessageContaining("LockOptions.builder().leaseTime(...)");
        assertThatThrownBy(() -> LockUrl.parse("jdbc:h2:./bad;leaseTme=10s"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("'leaseTme' is not a URI option (did you mean 'leaseTime'?)");
    }

    @Test
    void anH2UrlWithAQueryIsRefusedInsteadOfNamingAFile() {
        assertThatThrownBy(() -> LockUrl.parse("jdbc:h2:./bad?table=foo&createSchema=false"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("H2 URLs take settings and Baton's options after ';', not '?'")
                .hasMessageContaining("write jdbc:h2:./bad;table=foo;createSchema=false");
    }

    @Test
    void theDriversOwnParametersPassThroughUntouched() {
        assertThat(LockUrl.driverParameters(Dialect.POSTGRESQL)).contains("sslmode", "applicationname");
        assertThat(LockUrl.driverParameters(Dialect.MARIADB)).contains("connecttimeout");
        String postgres = "jdbc:postgresql://db/app?sslmode=disable&ApplicationName=billing&tcpKeepAlive=true"
                + "&currentSchema=app&options=-c%20statement_timeout%3D5s";
        assertThat(LockUrl.parse(postgres + "&table=t").driverUrl()).isEqualTo(postgres);
        String mariadb = "jdbc:mariadb://db/app?useSsl=false&connectTimeout=100&autocommit=true";
        assertThat(LockUrl.parse(mariadb + "&strategy=advisory").driverUrl()).isEqualTo(mariadb);
        String h2 = "jdbc:h2:mem:x;MODE=PostgreSQL;AUTO_SERVER=TRUE;FILE_LOCK=FILE;TRACE_LEVEL_FILE=0";
        assertThat(LockUrl.parse(h2 + ";table=t").driverUrl()).isEqualTo(h2);
    }

    @Test
    void aBooleanOptionOtherThanTrueOrFalseIsRefused() {
        assertThatThrownBy(() -> LockUrl.parse("jdbc:mariadb://db/app?strategy=advisory&advisoryHolders=no"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("advisoryHolders must be true or false but was 'no'");
    }

    @Test
    void passwordsAreRedacted() {
        assertThat(JdbcFailures.redact("jdbc:postgresql://u:pw@db/app?user=u&password=pw&x=1"))
                .isEqualTo("jdbc:postgresql://u:***@db/app?user=u&password=***&x=1");
        assertThat(JdbcFailures.redact("jdbc:h2:tcp://h/db;USER=sa;PASSWORD=pw;X=1"))
                .isEqualTo("jdbc:h2:tcp://h/db;USER=sa;PASSWORD=***;X=1");
    }

    @Test
    void providerServesBothSchemesAndValidatesBeforeAnyIo() {
        JdbcLockBackendProvider provider = new JdbcLockBackendProvider();

        assertThat(provider.schemes()).containsExactlyInAnyOrder("jdbc:h2", "jdbc:postgresql", "jdbc:mariadb");
        assertThatThrownBy(() -> provider.create("jdbc:postgresql://db/app?strategy=pessimism", LockOptions.defaults()))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("strategy 'pessimism' is not available");
        assertThatThrownBy(() -> provider.create("jdbc:h2:mem:x;table=bad-name", LockOptions.defaults()))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("'bad-name'");
    }

    @Test
    void poolIsBoundedByTheOperationTimeout() {
        var config = JdbcLockBackendProvider.poolConfig(
                LockUrl.parse("jdbc:postgresql://db/app?table=t&user=u"), java.time.Duration.ofMillis(1500));

        assertThat(config.getJdbcUrl()).isEqualTo("jdbc:postgresql://db/app?user=u");
        assertThat(config.getPoolName()).startsWith("baton-");
        assertThat(config.getMaximumPoolSize()).isEqualTo(10);
        assertThat(config.getConnectionTimeout()).isEqualTo(1500);
        assertThat(config.getValidationTimeout()).isLessThanOrEqualTo(1500);
        assertThat(config.getInitializationFailTimeout()).isEqualTo(-1);
        assertThat(config.getDataSourceProperties())
                .containsEntry("connectTimeout", "2")
                .containsEntry("loginTimeout", "2")
                .containsEntry("socketTimeout", "3");

        var shortTimeout =
                JdbcLockBackendProvider.poolConfig(LockUrl.parse("jdbc:h2:mem:x"), java.time.Duration.ofMillis(10));
        assertThat(shortTimeout.getConnectionTimeout()).isEqualTo(250);
        assertThat(shortTimeout.getDataSourceProperties()).isEmpty();
    }
}
