package dev.baton.servers;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ClusterNodesTest {
    private static final String M1 = "a1 127.0.0.1:7001@17001 ";
    private static final String M2 = "b2 127.0.0.1:7002@17002 ";
    private static final String R1 = "c3 127.0.0.1:7003@17003 ";

    private static ClusterNodes view(String m1Flags, String m2Flags, String r1Flags, String r1Master) {
        return ClusterNodes.parse(M1 + m1Flags + " - 0 0 1 connected 0-8191 [8192->-b2]\n"
                + M2 + m2Flags + " - 0 0 2 connected 8192-16382 16383\n"
                + R1 + r1Flags + " " + r1Master + " 0 0 1 connected\n");
    }

    @Test
    void readsRolesSlotsAndFailures() {
        ClusterNodes view = view("myself,master", "master,fail", "slave", "a1");
        assertThat(view.self().port()).isEqualTo(7001);
        assertThat(view.serving(7001)).isTrue();
        assertThat(view.serving(7002)).as("failed").isFalse();
        assertThat(view.ownerOf(16383)).isNull();
        assertThat(view.ownerOf(8191).port())
                .as("a migrating slot is not counted")
                .isEqualTo(7001);
        assertThat(view.replicates(7003, view.at(7001))).isTrue();
        assertThat(view.replicates(7003, view.at(7002))).isFalse();
    }

    @Test
    void viewsAgreeOnlyWhenEachNodeIsSeenAsItSeesItself() {
        ClusterNodes m1 = view("myself,master", "master", "slave", "a1");
        ClusterNodes m2 = view("master", "myself,master", "slave", "a1");
        ClusterNodes r1 = view("master", "master", "myself,slave", "a1");
        assertThat(ClusterNodes.agree(List.of(m1, m2, r1))).isTrue();

        ClusterNodes staleM2 = view("master", "myself,master", "slave", "b2");
        assertThat(ClusterNodes.agree(List.of(m1, staleM2, r1))).isFalse();
        ClusterNodes suspicious = view("master", "myself,master", "slave,fail?", "a1");
        assertThat(ClusterNodes.agree(List.of(m1, suspicious, r1))).isFalse();
    }
}
