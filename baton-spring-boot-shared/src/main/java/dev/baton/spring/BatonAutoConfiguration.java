package dev.baton.spring;

import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockOptions;
import dev.baton.locked.internal.ClientSettings;
import dev.baton.locked.internal.LockedReleases;
import org.springframework.aop.Advisor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.core.Ordered;

/**
 * Auto-configuration of Baton: one {@link LockClient} bean built from {@link BatonProperties}
 * ({@code baton.uri}, {@code baton.lease-time}, ...), and the advice that runs {@link Locked}
 * methods under their lock.
 *
 * <p>The client is created when the context starts and closed when it shuts down (releasing every
 * lease it still holds, with no thread left behind). A {@link LockClient} bean of the application's
 * own replaces it; {@link Locked} methods and the health indicator then use that one.
 *
 * <p>Startup fails with a {@link LockConfigurationException} naming the property when {@code
 * baton.uri} is missing or is not a URI that a Baton backend on the class path serves, when it or a
 * backend property ({@code baton.jdbc.*}, ...) names a bad option or value, or when a duration is zero
 * or negative; {@link BatonFailureAnalyzer} reports it as Boot's "APPLICATION FAILED TO START" with
 * the action to take. It also fails at once, naming the right artifact, when this starter runs on
 * the other Spring Boot line than the one it was built for (baton-spring-boot-starter for Boot 4,
 * baton-spring-boot3-starter for Boot 3.5).
 *
 * <p>{@link Locked} methods are advised by Spring AOP proxies, as {@code @Transactional} ones are:
 * Boot's AOP auto-configuration ({@code spring.aop.auto=true}, the default) provides the proxying.
 * Calls from inside the same bean ({@code this.method()}) bypass the proxy and are not locked.
 */
@AutoConfiguration(after = AopAutoConfiguration.class)
@EnableConfigurationProperties(BatonProperties.class)
public class BatonAutoConfiguration {

    /**
     * The advice order of {@link Locked}: before (outside) {@code @Transactional}, whose advice has
     * the lowest precedence by default, so that a transaction commits before its lock is released.
     */
    public static final int LOCKED_ORDER = Ordered.LOWEST_PRECEDENCE - 1000;

    /**
     * The auto-configuration; refuses a Spring Boot line the starter was not built for.
     *
     * @throws LockConfigurationException naming the starter to use instead
     */
    public BatonAutoConfiguration() {
        WrongBootLineException.require(SpringBootVersion.getVersion());
    }

    /**
     * The application's client, built from {@link BatonProperties} and then changed by every {@link
     * LockOptionsCustomizer} bean in order; closed when the context shuts down.
     *
     * @param properties the {@code baton.*} properties
     * @param customizers the customizers of the client's options, applied in their {@code @Order}
     * @return a client connected to {@code baton.uri}
     * @throws LockConfigurationException naming the property if {@code baton.uri} is missing or
     *     invalid, or a duration is zero or negative
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public LockClient batonLockClient(BatonProperties properties, ObjectProvider<LockOptionsCustomizer> customizers) {
        String uri = ClientSettings.requireUri(properties.getUri(), "define a LockClient bean of your own");
        // Micrometer: with baton-micrometer on the class path and a MeterRegistry bean,
        // BatonMetricsAutoConfiguration contributes a LockOptionsCustomizer that adds the meters'
        // listener to these options.
        LockOptions options = new ClientSettings(
                        properties.getLeaseTime(),
                        properties.getOperationTimeout(),
                        properties.getPollInitialDelay(),
                        properties.getPollMaxDelay(),
                        properties.isAutoRenew(),
                        properties.isFair(),
                        properties.getClientName())
                .options(builder -> customizers.orderedStream().forEach(customizer -> customizer.customize(builder)));
        String withOptions = BackendUriOptions.apply(uri, properties);
        String named = withOptions.equals(uri) ? "baton.uri" : "baton.uri with its baton.* backend properties";
        return ClientSettings.connect(withOptions, named, options);
    }

    /**
     * Where {@link Locked} calls that ended before their {@code lockAtLeastFor} leave their leases
     * until it is up; closed before the client (which it depends on), releasing them at once.
     *
     * @param client the client whose leases are kept
     * @return the releases' keeper; starts its one thread on first use
     */
    @Bean(destroyMethod = "close")
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    LockedReleases batonLockedReleases(LockClient client) {
        return new LockedReleases();
    }

    /**
     * The advisor of {@link Locked} methods. Static and lazy about the client so that creating it
     * (early, among the post-processors) does not create the client too soon.
     *
     * @param client the client the advised methods lock with, looked up on the first call
     * @param releases keeps the leases of calls shorter than their lockAtLeastFor, looked up on the
     *     first call
     * @param beanFactory resolves {@code @bean} references in the lock names' expressions
     * @return an advisor ordered at {@link #LOCKED_ORDER}
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    public static Advisor batonLockedAdvisor(
            ObjectProvider<LockClient> client, ObjectProvider<LockedReleases> releases, BeanFactory beanFactory) {
        LockedMethods methods = new LockedMethods(beanFactory);
        DefaultPointcutAdvisor advisor =
                new DefaultPointcutAdvisor(methods.pointcut(), new LockedMethodInterceptor(client, releases, methods));
        advisor.setOrder(LOCKED_ORDER);
        return advisor;
    }
}
