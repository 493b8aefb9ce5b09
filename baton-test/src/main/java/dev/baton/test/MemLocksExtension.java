package dev.baton.test;

import dev.baton.Baton;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockOptions;
import java.util.Locale;
import java.util.Objects;
import java.util.UUID;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * A JUnit 5 extension that gives each test a {@code mem://} namespace of its own, a {@link LockClient}
 * on it and its {@link MemFaults}, as parameters of the test method (and of its {@code @BeforeEach}
 * and {@code @AfterEach} methods, which get the same ones):
 *
 * <pre>{@code
 * @ExtendWith(MemLocksExtension.class)
 * class BillingTest {
 *     @Test
 *     void stopsWhenItsLeaseIsLost(LockClient client, MemFaults faults) { ... }
 * }
 * }</pre>
 *
 * <p>After the test the client is closed (its leases released, its threads ended) and the namespace
 * is forgotten, so no test sees another's locks, tokens or faults. A client the application under
 * test makes itself, from {@link MemFaults#uri()}, shares the test's namespace; the application
 * closes it. With {@code @RegisterExtension} and {@link #withOptions}, the injected client has the
 * given options (a short lease time, to see a loss within a fraction of a second).
 */
public final class MemLocksExtension implements ParameterResolver {
    private static final ExtensionContext.Namespace STORE = ExtensionContext.Namespace.create(MemLocksExtension.class);

    private final LockOptions options;

    /** The extension with {@link LockOptions#defaults()}, for {@code @ExtendWith}. */
    public MemLocksExtension() {
        this(LockOptions.defaults());
    }

    private MemLocksExtension(LockOptions options) {
        this.options = options;
    }

    /**
     * The extension whose clients have {@code options}, for {@code @RegisterExtension}.
     *
     * @param options the injected clients' options
     * @return a new extension
     * @throws LockConfigurationException if {@code options} is null
     */
    public static MemLocksExtension withOptions(LockOptions options) {
        if (options == null) {
            throw new LockConfigurationException(
                    "MemLocksExtension.withOptions: options must not be null; use LockOptions.defaults()");
        }
        return new MemLocksExtension(options);
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == LockClient.class || type == MemFaults.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        // Keyed by the context's id: a store also finds its parents' values, and a test must not get
        // one made for its class (a constructor's parameters).
        TestNamespace test = context.getStore(STORE)
                .getOrComputeIfAbsent(
                        context.getUniqueId(), id -> new TestNamespace(context, options), TestNamespace.class);
        return parameter.getParameter().getType() == LockClient.class ? test.client : test.faults;
    }

    @Override
    public String toString() {
        return "MemLocksExtension[" + options + "]";
    }

    /** One test's namespace and client, closed and forgotten when the test's context closes. */
    private static final class TestNamespace implements ExtensionContext.Store.CloseableResource {
        final String name;
        final MemFaults faults;
        final LockClient client;

        TestNamespace(ExtensionContext context, LockOptions options) {
            this.name = name(context);
            this.faults = MemLocks.faults(name);
            this.client = Baton.connect(MemLocks.uri(name), options);
        }

        /** {@code <test method>-<8 random hex digits>}, in the characters a namespace allows. */
        private static String name(ExtensionContext context) {
            String method = context.getTestMethod().map(m -> m.getName()).orElseGet(() -> context.getTestClass()
                    .map(Class::getSimpleName)
                    .orElse("test"));
            String safe = method.replaceAll("[^A-Za-z0-9._-]", "_");
            if (safe.length() > 80) {
                safe = safe.substring(0, 80);
            }
            return safe + "-" + UUID.randomUUID().toString().substring(0, 8).toLowerCase(Locale.ROOT);
        }

        @Override
        public void close() {
            try {
                client.close();
            } finally {
                MemLocks.forget(Objects.requireNonNull(name));
            }
        }
    }
}
