package dev.baton.jdbc;

/**
 * MariaDB's fair hand-off where multi-statement queries are off (as on an application's DataSource
 * without {@code allowMultiQueries}): the one-trip release is refused once and the release runs as a
 * transaction of single statements ({@code RowHandOffStatements#handOn}).
 */
class MariaDbHandOffSingleStatementsTest extends MariaDbHandOffTest {
    @Override
    String url(String strategy, String table) {
        return super.url(strategy, table) + "&allowMultiQueries=false";
    }
}
