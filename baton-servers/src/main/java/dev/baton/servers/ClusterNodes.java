package dev.baton.servers;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * One node's view of a Redis Cluster, parsed from its {@code CLUSTER NODES} reply: which node is a
 * master of which slots, which replicates which, and which the node believes failed.
 */
record ClusterNodes(List<Node> nodes) {

    /** One line: a node's id, client port, flags ({@code myself}, {@code master}, {@code slave}, {@code fail}, ...), master id and slots. */
    record Node(String id, int port, Set<String> flags, String masterId, List<int[]> slots) {
        boolean master() {
            return flags.contains("master");
        }

        boolean failed() {
            return flags.contains("fail") || flags.contains("fail?") || flags.contains("noaddr");
        }

        boolean owns(int slot) {
            return slots.stream().anyMatch(range -> range[0] <= slot && slot <= range[1]);
        }
    }

    /** Asks the node on {@code port}. */
    static ClusterNodes of(int port) {
        Object reply = Resp.call(port, "CLUSTER", "NODES");
        if (!(reply instanceof String text) || text.startsWith("-")) {
            throw new IllegalStateException(
                    "the Redis Cluster node on port " + port + " answered CLUSTER NODES with " + reply);
        }
        return parse(text);
    }

    /** Parses lines {@code <id> <ip:port@bus> <flags> <master> <ping> <pong> <epoch> <link> <slot>...}. */
    static ClusterNodes parse(String text) {
        List<Node> nodes = new ArrayList<>();
        for (String line : text.split("\n")) {
            String[] fields = line.trim().split(" ");
            if (fields.length < 8) {
                continue;
            }
            String address = fields[1];
            int at = address.indexOf('@');
            String hostPort = at < 0 ? address : address.substring(0, at);
            int port = Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
            List<int[]> slots = new ArrayList<>();
            for (int i = 8; i < fields.length; i++) {
                String slot = fields[i];
                if (slot.startsWith("[")) {
                    continue; // a slot being imported or migrated: not owned yet or still owned elsewhere
                }
                int dash = slot.indexOf('-');
                slots.add(
                        dash < 0
                                ? new int[] {Integer.parseInt(slot), Integer.parseInt(slot)}
                                : new int[] {
                                    Integer.parseInt(slot.substring(0, dash)),
                                    Integer.parseInt(slot.substring(dash + 1))
                                });
            }
            nodes.add(new Node(fields[0], port, Set.of(fields[2].split(",")), fields[3], List.copyOf(slots)));
        }
        return new ClusterNodes(List.copyOf(nodes));
    }

    /** {@return the node whose view this is ({@code myself}), or null} */
    Node self() {
        return nodes.stream()
                .filter(n -> n.flags().contains("myself"))
                .findFirst()
                .orElse(null);
    }

    /**
     * {@return whether these views (of running nodes, one each) agree on each of those nodes as it sees
     * itself: not failed, master or replica, and for a replica, of which master} Gossip spreads a
     * change (a promotion, a node rejoining as a replica) a ping at a time, so right after one, nodes
     * may still disagree.
     */
    static boolean agree(List<ClusterNodes> views) {
        for (ClusterNodes own : views) {
            Node self = own.self();
            if (self == null) {
                return false;
            }
            for (ClusterNodes other : views) {
                Node seen = other.at(self.port());
                if (seen == null
                        || seen.failed()
                        || seen.master() != self.master()
                        || (!self.master() && !self.masterId().equals(seen.masterId()))) {
                    return false;
                }
            }
        }
        return true;
    }

    /** {@return the node on {@code port}, or null} */
    Node at(int port) {
        return nodes.stream().filter(n -> n.port() == port).findFirst().orElse(null);
    }

    /** {@return the master that this view says serves {@code slot} and has not failed, or null} */
    Node ownerOf(int slot) {
        return nodes.stream()
                .filter(n -> n.master() && !n.failed() && n.owns(slot))
                .findFirst()
                .orElse(null);
    }

    /** {@return the masters that serve slots and have not failed} */
    List<Node> servingMasters() {
        return nodes.stream()
                .filter(n -> n.master() && !n.failed() && !n.slots().isEmpty())
                .toList();
    }

    /** {@return whether the node on {@code port} is a master that serves slots and has not failed} */
    boolean serving(int port) {
        return servingMasters().stream().anyMatch(n -> n.port() == port);
    }

    /** {@return whether the node on {@code port} replicates {@code master} and has not failed} */
    boolean replicates(int port, Node master) {
        Node node = at(port);
        return node != null && !node.master() && !node.failed() && master.id().equals(node.masterId());
    }
}
