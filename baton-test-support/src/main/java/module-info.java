/**
 * Helpers for tests on the JDK alone: fault injection ({@link dev.baton.testsupport.TcpProxy},
 * {@link dev.baton.testsupport.ForkedJava}) and time bounds ({@link dev.baton.testsupport.TestTime},
 * {@link dev.baton.testsupport.Await}).
 */
module dev.baton.testsupport {
    exports dev.baton.testsupport;
}
