package dev.baton.locked.internal;

import dev.baton.LockConfigurationException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * One {@code @Locked} method, its annotation parsed and checked once, the same under every framework;
 * only the name template's language ({@code N}: SpEL under Spring, a subset of it under Quarkus) and
 * the duration syntax are the framework's. A bad annotation is refused with a {@link
 * LockConfigurationException} naming the method and the fix.
 *
 * @param <N> the framework's parsed name template
 * @param where the method as named in messages ({@code @Locked Billing.bill(long)})
 * @param template the name as written
 * @param name the parsed template
 * @param waitTime how long to wait, {@code null} for as long as it takes ({@code 0} when skipping
 *     without a waitTime)
 * @param leaseTime the lease time, {@code null} for the client's
 * @param lockAtLeastFor the least time the lock is held from its grant, {@code null} for none
 * @param skipped what a call that finds the lock taken returns, {@code null} to fail it instead
 */
public record LockedMethod<N>(
        String where,
        String template,
        N name,
        Duration waitTime,
        Duration leaseTime,
        Duration lockAtLeastFor,
        Supplier<Object> skipped) {

    /** Return types whose work goes on after the method returns, which a lock around the call cannot guard. */
    private static final List<String> ASYNC_TYPES = List.of(
            "org.reactivestreams.Publisher",
            "java.util.concurrent.Flow$Publisher",
            "io.smallrye.mutiny.Uni",
            "io.smallrye.mutiny.Multi",
            "kotlinx.coroutines.flow.Flow");

    /**
     * A framework's annotation, as written.
     *
     * @param name the name template
     * @param waitTime the wait, empty for none
     * @param leaseTime the lease time, empty for the client's
     * @param lockAtLeastFor the least hold, empty for none
     * @param skipIfLocked whether a call that finds the lock taken returns quietly
     */
    public record Annotation(
            String name, String waitTime, String leaseTime, String lockAtLeastFor, boolean skipIfLocked) {}

    /**
     * Parses the framework's name template.
     *
     * @param <N> the parsed template
     */
    @FunctionalInterface
    public interface NameParser<N> {
        /**
         * Parses and checks a template against the method's parameters.
         *
         * @param method the annotated method
         * @param template the name as written, not blank
         * @param where the method as named in messages
         * @return the parsed template
         * @throws LockConfigurationException naming {@code where}, the template and the fix
         */
        N parse(Method method, String template, String where);
    }

    /**
     * Whether a call that finds the lock taken returns quietly.
     *
     * @return {@code true} with {@code skipIfLocked}
     */
    public boolean skipsIfLocked() {
        return skipped != null;
    }

    /**
     * Parses and checks one method's annotation.
     *
     * @param <N> the parsed name template
     * @param method the annotated method
     * @param annotation its attributes
     * @param names parses the name template
     * @param durations the framework's duration syntax; {@code null} or {@link IllegalArgumentException}
     *     for a value that is not a duration
     * @return the parsed method
     * @throws LockConfigurationException naming the method, the attribute and the fix
     */
    public static <N> LockedMethod<N> parse(
            Method method, Annotation annotation, NameParser<N> names, Function<String, Duration> durations) {
        String where = describe(method);
        checkSynchronous(method, where);
        if (annotation.name().isBlank()) {
            throw new LockConfigurationException(
                    where + ": name is empty; give the lock a name such as \"invoice-#{#id}\"");
        }
        N name = names.parse(method, annotation.name(), where);
        Duration waitTime = duration(where, "waitTime", annotation.waitTime(), true, durations);
        Duration leaseTime = duration(where, "leaseTime", annotation.leaseTime(), false, durations);
        Duration atLeast = duration(where, "lockAtLeastFor", annotation.lockAtLeastFor(), true, durations);
        if (annotation.skipIfLocked()) {
            checkSkippable(method, where);
            if (waitTime == null) {
                waitTime = Duration.ZERO;
            }
        }
        return new LockedMethod<>(
                where,
                annotation.name(),
                name,
                waitTime,
                leaseTime,
                atLeast == null || atLeast.isZero() ? null : atLeast,
                annotation.skipIfLocked() ? skipped(method) : null);
    }

    /**
     * The lock name of one call, from the framework's evaluation of the template.
     *
     * @param evaluation evaluates the template for this call; may throw
     * @param arguments the call's arguments, for the message
     * @return the resolved name, not empty
     * @throws LockConfigurationException naming the method and the template when the evaluation fails
     *     or yields {@code null} or an empty name
     */
    public String resolve(Supplier<?> evaluation, Object[] arguments) {
        Object value;
        try {
            value = evaluation.get();
        } catch (RuntimeException e) {
            throw new LockConfigurationException(
                    where + ": name = \"" + template + "\" could not be evaluated for this call: " + e.getMessage(), e);
        }
        String resolved = value == null ? null : value.toString();
        if (resolved == null || resolved.isEmpty()) {
            throw new LockConfigurationException(where + ": name = \"" + template + "\" resolved to an empty name for"
                    + " arguments " + Arrays.toString(arguments)
                    + "; make the template yield a non-empty name for every call");
        }
        return resolved;
    }

    /**
     * The method as messages name it.
     *
     * @param method the annotated method
     * @return {@code @Locked Class.method(ParameterTypes)}
     */
    public static String describe(Method method) {
        return "@Locked " + method.getDeclaringClass().getSimpleName() + "." + method.getName()
                + Arrays.stream(method.getParameterTypes())
                        .map(Class::getSimpleName)
                        .collect(Collectors.joining(", ", "(", ")"));
    }

    /** A skipped call returns nothing: only methods whose callers can tell "did not run" from a result. */
    private static void checkSkippable(Method method, String where) {
        Class<?> type = method.getReturnType();
        if (type != void.class && type != Void.class && type != Optional.class) {
            throw new LockConfigurationException(where + ": skipIfLocked = true needs a method that returns void or"
                    + " Optional (a skipped call returns nothing, or Optional.empty()), but it returns "
                    + type.getSimpleName() + "; return Optional<" + type.getSimpleName() + ">, or leave skipIfLocked"
                    + " out to have callers get a LockedTimeoutException");
        }
    }

    /** What a skipped call returns. */
    private static Supplier<Object> skipped(Method method) {
        return method.getReturnType() == Optional.class ? Optional::empty : () -> null;
    }

    private static void checkSynchronous(Method method, String where) {
        Class<?> type = method.getReturnType();
        boolean async = CompletionStage.class.isAssignableFrom(type)
                || Future.class.isAssignableFrom(type)
                || ASYNC_TYPES.stream().anyMatch(name -> isA(type, name));
        if (async) {
            throw new LockConfigurationException(where + ": @Locked cannot guard a method that returns "
                    + type.getSimpleName() + ": the lock would be released when the method returns, before the"
                    + " work it started ends; lock inside the asynchronous work with LockClient instead");
        }
    }

    private static boolean isA(Class<?> type, String name) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (c.getName().equals(name) || Arrays.stream(c.getInterfaces()).anyMatch(i -> isA(i, name))) {
                return true;
            }
        }
        return false;
    }

    private static Duration duration(
            String where, String attribute, String value, boolean zeroAllowed, Function<String, Duration> durations) {
        if (value.isBlank()) {
            return null;
        }
        Duration duration;
        try {
            duration = durations.apply(value.trim());
        } catch (IllegalArgumentException e) {
            duration = null;
        }
        if (duration == null) {
            throw new LockConfigurationException(
                    where + ": " + attribute + " = \"" + value + "\" is not a duration; write it as 5s, 250ms or PT5S");
        }
        if (duration.isNegative() || (!zeroAllowed && duration.isZero())) {
            throw new LockConfigurationException(where + ": " + attribute + " = \"" + value + "\" must be "
                    + (zeroAllowed ? "zero or positive" : "positive") + "; give a duration such as 30s");
        }
        return duration;
    }
}
