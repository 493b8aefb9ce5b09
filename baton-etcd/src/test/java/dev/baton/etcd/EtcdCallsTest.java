package dev.baton.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import org.junit.jupiter.api.Test;

/**
 * Which failures a call sends again within its operation timeout. Every request of the backend is
 * idempotent, so a transport failure is retried; a refusal by etcd is not.
 */
class EtcdCallsTest {

    @Test
    void aConnectionThatDroppedUnderTheRequestIsRetried() {
        // What jetcd's Vert.x transport reports when a member dies with the request in flight: a waiter
        // must ride through the leader's death (EtcdClusterFaultTest) instead of failing on it.
        assertThat(EtcdCalls.retryable(
                        Status.UNKNOWN.withDescription("channel closed").asRuntimeException()))
                .isTrue();
        assertThat(EtcdCalls.retryable(
                        Status.UNAVAILABLE.withDescription("io exception").asRuntimeException()))
                .isTrue();
    }

    @Test
    void refusalsAreNotRetried() {
        assertThat(EtcdCalls.retryable(
                        Status.UNKNOWN.withDescription("something else").asRuntimeException()))
                .isFalse();
        assertThat(EtcdCalls.retryable(Status.PERMISSION_DENIED
                        .withDescription("etcdserver: permission denied")
                        .asRuntimeException()))
                .isFalse();
        assertThat(EtcdCalls.retryable(Status.INVALID_ARGUMENT
                        .withDescription("etcdserver: authentication failed, invalid user ID or password")
                        .asRuntimeException()))
                .isFalse();
    }
}
