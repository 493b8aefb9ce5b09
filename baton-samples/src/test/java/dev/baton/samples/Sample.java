package dev.baton.samples;

import java.util.List;

/**
 * One application under {@code src/samples}: its directory, the backends its test must report a lock
 * taken and released on ({@code baton-sample: BACKEND took and released lock ...} in its build's output),
 * and, when Spring Boot's BOM is imported before baton-bom and so chooses its Netty, the line Boot's
 * Netty must be on ({@code null}: baton-bom's Netty).
 */
record Sample(String name, List<String> backends, String bootNettyLine) {

    Sample(String name, List<String> backends) {
        this(name, backends, null);
    }

    /** Every sample, in the order the reactor builds them. */
    static final List<Sample> ALL = List.of(
            new Sample("all-backends", List.of("postgresql", "h2", "redis", "zookeeper", "azure", "etcd")),
            new Sample("no-bom", List.of("zookeeper", "redis", "etcd", "azure", "h2")),
            new Sample("spring-boot", List.of("redis", "etcd"), "4.2."),
            new Sample("spring-boot3", List.of("postgresql", "redis"), "4.1."),
            new Sample("wrong-boot-line", List.of("h2"), "4.1."),
            new Sample("shedlock", List.of("redis")),
            new Sample("spring-integration", List.of("etcd")),
            new Sample("jdbc", List.of("postgresql", "h2")),
            new Sample("redis", List.of("redis")),
            new Sample("zookeeper", List.of("zookeeper")),
            new Sample("azure", List.of("azure")),
            new Sample("etcd", List.of("etcd")));

    @Override
    public String toString() {
        return name;
    }
}
