package dev.baton.quarkus;

import dev.baton.LockConfigurationException;
import dev.baton.locked.internal.LockedMethod;
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
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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

    private final Map<Method, LockedMethod<NameTemplate>> methods = new ConcurrentHashMap<>();

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
    LockedMethod<NameTemplate> find(Method method) {
        LockedMethod<NameTemplate> known = methods.get(method);
        return known != null ? known : methods.computeIfAbsent(method, LockedMethods::parse);
    }

    private static LockedMethod<NameTemplate> parse(Method method) {
        if (Modifier.isPrivate(method.getModifiers())) {
            throw new LockConfigurationException(LockedMethod.describe(method) + ": @Locked cannot guard a private"
                    + " method (CDI does not intercept it, so it would run unlocked); make it package-private,"
                    + " protected or public");
        }
        Locked locked = method.getAnnotation(Locked.class);
        LockedMethod.Annotation attributes = new LockedMethod.Annotation(
                locked.name(), locked.waitTime(), locked.leaseTime(), locked.lockAtLeastFor(), locked.skipIfLocked());
        return LockedMethod.parse(method, attributes, LockedMethods::parseName, DurationConverter::parseDuration);
    }

    private static NameTemplate parseName(Method method, String template, String where) {
        try {
            return NameTemplate.parse(template, method);
        } catch (IllegalArgumentException e) {
            throw new LockConfigurationException(where + ": name = \"" + template + "\" is not a valid template: "
                    + e.getMessage() + "; write literal text with #{#parameter} in it, e.g. \"invoice-#{#id}\"");
        }
    }

    /** Resolves the lock name of one call. */
    static String resolveName(LockedMethod<NameTemplate> locked, Object[] arguments) {
        return locked.resolve(() -> locked.name().resolve(arguments), arguments);
    }
}
