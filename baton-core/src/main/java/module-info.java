/**
 * Baton's public API ({@code dev.baton}) and the SPI a backend implements ({@code dev.baton.spi}).
 * The machinery every backend shares ({@code dev.baton.internal}) is not exported. Backends are
 * found with {@link java.util.ServiceLoader} as {@link dev.baton.spi.LockBackendProvider}s.
 */
module dev.baton.core {
    requires org.slf4j;

    exports dev.baton;
    exports dev.baton.spi;

    uses dev.baton.spi.LockBackendProvider;
}
