package dev.baton.quarkus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.LockConfigurationException;
import dev.baton.locked.internal.LockedMethod;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * {@link Locked} annotations parsed as the startup check and the interceptor parse them: name
 * templates with their property steps, durations, and the refusals with their messages.
 */
class LockedMethodsTest {

    record Customer(String country) {}

    record Order(String region, long id, Customer customer) {}

    /** A JavaBean, for the get- and is- forms. */
    public static class Account {
        public String getOwner() {
            return "ada";
        }

        public boolean isActive() {
            return true;
        }
    }

    static class Methods {
        @Locked(name = "invoice-#{#id}", waitTime = "5s", leaseTime = "PT1M")
        void byName(long id) {}

        @Locked(name = "order-#{#order.region()}-#{#p0.id}-#{ #a0 . customer . country() }")
        void steps(Order order) {}

        @Locked(name = "account-#{#account.owner}-#{#account.active}")
        void bean(Account account) {}

        @Locked(name = "fixed", waitTime = "0s")
        void literal() {}

        @Locked(name = "#{#text}")
        void whole(String text) {}

        @Locked(name = "report-#{#reportId}")
        void unknownParameter(long id) {}

        @Locked(name = "report-#{@beans.name()}")
        void springBean(long id) {}

        @Locked(name = "report-#{#p1}")
        void pastTheParameters(long id) {}

        @Locked(name = "report-#{#id")
        void unclosed(long id) {}

        @Locked(name = "report", waitTime = "soon")
        void badWait() {}

        @Locked(name = "report", leaseTime = "0s")
        void zeroLease() {}

        @Locked(name = "report")
        CompletableFuture<Void> async() {
            return null;
        }

        @Locked(name = "report")
        private void hidden() {}

        @Locked(name = "report", skipIfLocked = true)
        long skipsAValue() {
            return 0;
        }

        @Locked(name = "report", skipIfLocked = true, lockAtLeastFor = "30s")
        Optional<Long> skipsAnOptional() {
            return Optional.empty();
        }
    }

    private static Method method(String name) {
        return Arrays.stream(Methods.class.getDeclaredMethods())
                .filter(m -> m.getName().equals(name))
                .findFirst()
                .orElseThrow();
    }

    private static LockedMethod<NameTemplate> parse(String name) {
        return new LockedMethods().find(method(name));
    }

    private static String resolve(String name, Object... arguments) {
        return LockedMethods.resolveName(parse(name), arguments);
    }

    @Test
    void aNameResolvesParametersByNameAndPositionWithPropertySteps() {
        assertThat(resolve("byName", 42L)).isEqualTo("invoice-42");
        assertThat(resolve("steps", new Order("eu", 7, new Customer("fr")))).isEqualTo("order-eu-7-fr");
        assertThat(resolve("bean", new Account())).isEqualTo("account-ada-true");
        assertThat(resolve("literal")).isEqualTo("fixed");
    }

    @Test
    void theDurationsAreTheAnnotations() {
        assertThat(parse("byName").waitTime()).isEqualTo(Duration.ofSeconds(5));
        assertThat(parse("byName").leaseTime()).isEqualTo(Duration.ofMinutes(1));
        assertThat(parse("literal").waitTime()).isZero();
        assertThat(parse("literal").leaseTime()).as("the client's").isNull();
    }

    @Test
    void aCallWhoseNameCannotBeResolvedFailsNamingTheMethod() {
        assertThatThrownBy(() -> resolve("steps", new Order("eu", 7, null)))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("@Locked Methods.steps(Order)")
                .hasMessageContaining("meets null before .country");
        assertThatThrownBy(() -> resolve("whole", ""))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("resolved to an empty name");
    }

    @Test
    void aBadAnnotationIsRefusedWithTheMethodAndTheFix() {
        assertThatThrownBy(() -> parse("unknownParameter"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("@Locked Methods.unknownParameter(long)")
                .hasMessageContaining("no parameter of that name; its parameters are [id]");
        assertThatThrownBy(() -> parse("springBean")).hasMessageContaining("not other SpEL");
        assertThatThrownBy(() -> parse("pastTheParameters")).hasMessageContaining("#p1 is past the method's 1");
        assertThatThrownBy(() -> parse("unclosed")).hasMessageContaining("no closing '}'");
        assertThatThrownBy(() -> parse("badWait")).hasMessageContaining("waitTime = \"soon\" is not a duration");
        assertThatThrownBy(() -> parse("zeroLease")).hasMessageContaining("leaseTime = \"0s\" must be positive");
        assertThatThrownBy(() -> parse("async")).hasMessageContaining("returns CompletableFuture");
        assertThatThrownBy(() -> parse("hidden")).hasMessageContaining("cannot guard a private method");
        assertThatThrownBy(() -> parse("skipsAValue"))
                .hasMessageContaining("skipIfLocked = true needs a method that returns void or Optional");
    }

    @Test
    void skipIfLockedTriesOnceUnlessAWaitIsGivenAndLockAtLeastForIsKept() {
        LockedMethod<NameTemplate> skips = parse("skipsAnOptional");
        assertThat(skips.waitTime()).isZero();
        assertThat(skips.lockAtLeastFor()).isEqualTo(Duration.ofSeconds(30));
        assertThat(skips.skipped().get()).isEqualTo(Optional.empty());
        assertThat(parse("byName").skipsIfLocked()).isFalse();
    }
}
