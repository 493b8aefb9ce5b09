package dev.baton.redis;

import dev.baton.LockConfigurationException;
import io.lettuce.core.RedisClient;
import io.lettuce.core.resource.Transports;
import java.util.Map;

/**
 * Whether Lettuce can run on the Netty of this class path, and what to do when it cannot. Lettuce 7
 * is built on Netty 4.2 and fails on 4.1 with a {@link LinkageError} at its first connect (it loads
 * {@code io.netty.channel.MultiThreadIoEventLoopGroup}); an application whose BOM pins Netty 4.1
 * but not Lettuce (Quarkus 3, or any BOM of the 4.1 line) gets exactly that class path. Backends
 * check it when they are made ({@link #require}), and a failure that still comes at run time is
 * explained the same way ({@link #explain}).
 */
final class NettyLine {
    private NettyLine() {}

    /**
     * Loads what Lettuce loads at its first connect: its transport classes.
     *
     * @param subject what is being set up, for the message ({@code Baton.connect(redis://...)})
     * @throws LockConfigurationException if Lettuce cannot run on this class path's Netty
     */
    static void require(String subject) {
        try {
            Transports.eventLoopGroupClass();
            Transports.socketChannelClass();
        } catch (LinkageError e) {
            throw new LockConfigurationException(subject + ": " + explain(e), e);
        }
    }

    /** The mismatch behind {@code failure}, with the versions found and the fix, in one sentence. */
    static String explain(LinkageError failure) {
        String lettuce = lettuceVersion();
        String netty = nettyVersion();
        String found = "this class path has Netty " + netty + " (" + failure + ")";
        boolean lettuce7 = !lettuce.startsWith("6.") && !lettuce.startsWith("5.");
        if (lettuce7 && netty.startsWith("4.1.")) {
            return "Lettuce " + lettuce + " needs Netty 4.2, but " + found
                    + "; where the application stays on Netty 4.1 (a Quarkus 3 or Spring Boot 3 BOM pins it), manage"
                    + " io.lettuce:lettuce-core at 6.8.x, which runs on it; otherwise import dev.baton:baton-bom so"
                    + " that every io.netty module is 4.2";
        }
        return "Lettuce " + lettuce + " cannot run on the libraries of this class path: " + found
                + "; align Lettuce's and Netty's versions, for example by importing dev.baton:baton-bom";
    }

    /** Lettuce's version from its jar's manifest ({@code 7.7.0.RELEASE}), or "(unknown version)". */
    static String lettuceVersion() {
        String version = RedisClient.class.getPackage().getImplementationVersion();
        if (version == null) {
            return "(unknown version)";
        }
        int commit = version.indexOf('/');
        return commit < 0 ? version : version.substring(0, commit);
    }

    /** The version of Netty's transport (where Lettuce's missing classes live), or "(unknown version)". */
    static String nettyVersion() {
        try {
            Map<String, io.netty.util.Version> versions =
                    io.netty.util.Version.identify(NettyLine.class.getClassLoader());
            for (String artifact : new String[] {"netty-transport", "netty-common"}) {
                io.netty.util.Version version = versions.get(artifact);
                if (version != null) {
                    return version.artifactVersion();
                }
            }
        } catch (RuntimeException | LinkageError e) {
            // no version information: say so below
        }
        return "(unknown version)";
    }
}
