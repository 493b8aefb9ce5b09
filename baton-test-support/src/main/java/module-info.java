/**
 * Fault-injection helpers for tests on the JDK alone: {@link dev.baton.testsupport.TcpProxy} and
 * {@link dev.baton.testsupport.ForkedJava}.
 */
module dev.baton.testsupport {
    exports dev.baton.testsupport;
}
