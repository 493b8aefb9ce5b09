package dev.baton.quarkus;

import dev.baton.LockConfigurationException;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.runtime.configuration.DurationConverter;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The {@link Locked} methods of the application, each one's name template and durations parsed once.
 * At startup every class the build found with the annotation (listed in {@value #RESOURCE}) is
 * checked, so a bad annotation fails the startup rather than the first call.
 */
@Singleton
class LockedMethods {

    /** The classes with {@link Locked} methods, one binary name a line; written by the build step. */
    static final String RESOURCE = "META-INF/baton-quarkus/locked-classes";

    private static final List<String> ASYNC_TYPES = List.of(
            "org.reactivestreams.Publisher",
            "java.util.concurrent.Flow$Publisher",
            "io.smallrye.mutiny.Uni",
            "io.smallrye.mutiny.Multi",
            "kotlinx.coroutines.flow.Flow");

    private final Map<Method, LockedMethod> methods = new ConcurrentHashMap<>();

    void checkAtStartup(@Observes StartupEvent event) {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        for (String className : lockedClasses(loader)) {
            Class<?> type;
            try {
                type = Class.forName(className, false, loader);
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(
                        "Baton: the build listed " + className + " as having @Locked"
                                + " methods but it cannot be loaded; rebuild the application",
                        e);
            }
            if (type.isAnnotationPresent(Locked.class)) {
                throw new LockConfigurationException("@Locked on class " + type.getName() + ": annotate each method"
                        + " to lock instead, with the name of its lock (a lock per class is rarely what is meant)");
            }
            for (Method method : type.getDeclaredMethods()) {
                if (method.isAnnotationPresent(Locked.class)) {
                    find(method);
                }
            }
        }
    }

    private static List<String> lockedClasses(ClassLoader loader) {
        try (InputStream in = loader.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                return List.of();
            }
            return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))
                    .lines()
                    .map(String::strip)
                    .filter(line -> !line.isEmpty())
                    .collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The parsed annotation of the method, which must carry one. */
    LockedMethod find(Method method) {
        LockedMethod known = methods.get(method);
        return known != null ? known : methods.computeIfAbsent(method, LockedMethods::parse);
    }

    private static LockedMethod parse(Method method) {
        Locked locked = method.getAnnotation(Locked.class);
        String where = describe(method);
        if (Modifier.isPrivate(method.getModifiers())) {
            throw new LockConfigurationException(where + ": @Locked cannot guard a private method (CDI does not"
                    + " intercept it, so it would run unlocked); make it package-private, protected or public");
        }
        checkSynchronous(method, where);
        if (locked.name().isBlank()) {
            throw new LockConfigurationException(
                    where + ": name is empty; give the lock a name such as \"invoice-#{#id}\"");
        }
        NameTemplate name;
        try {
            name = NameTemplate.parse(locked.name(), method);
        } catch (IllegalArgumentException e) {
            throw new LockConfigurationException(where + ": name = \"" + locked.name() + "\" is not a valid template: "
                    + e.getMessage() + "; write literal text with #{#parameter} in it, e.g. \"invoice-#{#id}\"");
        }
        Duration waitTime = duration(where, "waitTime", locked.waitTime(), true);
        Duration leaseTime = duration(where, "leaseTime", locked.leaseTime(), false);
        Duration atLeast = duration(where, "lockAtLeastFor", locked.lockAtLeastFor(), true);
        if (locked.skipIfLocked()) {
            checkSkippable(method, where);
            if (waitTime == null) {
                waitTime = Duration.ZERO;
            }
        }
        return new LockedMethod(
                where,
                locked.name(),
                name,
                waitTime,
                leaseTime,
                atLeast == null || atLeast.isZero() ? null : atLeast,
                locked.skipIfLocked() ? skipped(method) : null);
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

    private static Duration duration(String where, String attribute, String value, boolean zeroAllowed) {
        if (value.isBlank()) {
            return null;
        }
        Duration duration;
        try {
            duration = DurationConverter.parseDuration(value.trim());
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

    static String describe(Method method) {
        return "@Locked " + method.getDeclaringClass().getSimpleName() + "." + method.getName()
                + Arrays.stream(method.getParameterTypes())
                        .map(Class::getSimpleName)
                        .collect(Collectors.joining(", ", "(", ")"));
    }

    /** Resolves the lock name of one call. */
    static String resolveName(LockedMethod locked, Object[] arguments) {
        String resolved;
        try {
            resolved = locked.name().resolve(arguments);
        } catch (IllegalArgumentException e) {
            throw new LockConfigurationException(
                    locked.where() + ": name = \"" + locked.template() + "\" could not be evaluated for this call: "
                            + e.getMessage(),
                    e);
        }
        if (resolved.isEmpty()) {
            throw new LockConfigurationException(locked.where() + ": name = \"" + locked.template()
                    + "\" resolved to an empty name for arguments " + Arrays.toString(arguments)
                    + "; make the template yield a non-empty name for every call");
        }
        return resolved;
    }

    /**
     * One annotated method.
     *
     * @param where the method as named in messages
     * @param template the name as written
     * @param name the parsed template
     * @param waitTime how long to wait, {@code null} for as long as it takes ({@code 0} when skipping
     *     without a waitTime)
     * @param leaseTime the lease time, {@code null} for the client's
     * @param lockAtLeastFor the least time the lock is held from its grant, {@code null} for none
     * @param skipped what a call that finds the lock taken returns, {@code null} to fail it instead
     */
    record LockedMethod(
            String where,
            String template,
            NameTemplate name,
            Duration waitTime,
            Duration leaseTime,
            Duration lockAtLeastFor,
            Supplier<Object> skipped) {

        boolean skipsIfLocked() {
            return skipped != null;
        }
    }
}
