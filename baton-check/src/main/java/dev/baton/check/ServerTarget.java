package dev.baton.check;

import dev.baton.testsupport.TcpProxy;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * A target whose clients reach their servers through proxies of their own: the client's URI is made
 * from the proxies' addresses, so cutting or black-holing them isolates that client alone.
 */
abstract class ServerTarget implements CheckTarget {
    private final String id;
    private final String description;
    private final String subject;
    private final boolean strict;
    private final Set<Fault> faults;

    ServerTarget(String id, String description, String subject, boolean strict, Set<Fault> faults) {
        this.id = id;
        this.description = description;
        this.subject = subject;
        this.strict = strict;
        this.faults = EnumSet.copyOf(faults);
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public String subject() {
        return subject;
    }

    @Override
    public boolean strict() {
        return strict;
    }

    @Override
    public Set<Fault> faults() {
        return faults;
    }

    /** The servers' addresses, in the order {@link #uri} expects them. */
    abstract List<InetSocketAddress> addresses();

    /** The URI that reaches the servers at these addresses (a client's proxies). */
    abstract String uri(List<InetSocketAddress> through);

    @Override
    public Route route(int client) {
        List<TcpProxy> proxies = new ArrayList<>();
        try {
            for (InetSocketAddress address : addresses()) {
                proxies.add(TcpProxy.start(address));
            }
        } catch (RuntimeException e) {
            proxies.forEach(TcpProxy::close);
            throw e;
        }
        return new Route(uri(proxies.stream().map(TcpProxy::address).toList()), proxies);
    }

    @Override
    public void hitServer(Fault fault, Random random) throws InterruptedException {
        throw new UnsupportedOperationException(id + " cannot inject " + fault.id());
    }

    static String hostPorts(List<InetSocketAddress> addresses) {
        return String.join(
                ",",
                addresses.stream()
                        .map(a -> a.getHostString() + ":" + a.getPort())
                        .toList());
    }
}
