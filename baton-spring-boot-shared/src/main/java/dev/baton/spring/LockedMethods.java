package dev.baton.spring;

import dev.baton.LockConfigurationException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.common.TemplateParserContext;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * The {@link Locked} methods of the context: which methods are advised, and each one's parsed name
 * template and durations. Parsing happens when a bean's proxy is made, so a bad annotation fails the
 * startup rather than the first call.
 */
final class LockedMethods {

    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    private static final TemplateParserContext TEMPLATE = new TemplateParserContext();
    private static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();
    private static final Pattern VARIABLE = Pattern.compile("#([A-Za-z_$][A-Za-z0-9_$]*)");
    private static final Pattern POSITIONAL = Pattern.compile("[pa][0-9]+");
    private static final Set<String> BUILT_IN = Set.of("root", "this");
    private static final List<String> ASYNC_TYPES =
            List.of("org.reactivestreams.Publisher", "kotlinx.coroutines.flow.Flow");

    private final BeanFactory beanFactory;
    private final Map<Method, LockedMethod> methods = new ConcurrentHashMap<>();

    LockedMethods(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    Pointcut pointcut() {
        return new StaticMethodMatcherPointcut() {
            @Override
            public boolean matches(Method method, Class<?> targetClass) {
                return find(method, targetClass) != null;
            }
        };
    }

    /** The parsed annotation of the method, or {@code null} when it has none. */
    LockedMethod find(Method method, Class<?> targetClass) {
        Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
        LockedMethod known = methods.get(specific);
        if (known != null) {
            return known;
        }
        Locked locked = AnnotatedElementUtils.findMergedAnnotation(specific, Locked.class);
        if (locked == null) {
            return null;
        }
        return methods.computeIfAbsent(specific, key -> parse(key, locked));
    }

    private static LockedMethod parse(Method method, Locked locked) {
        String where = describe(method);
        checkSynchronous(method, where);
        Expression name;
        try {
            name = PARSER.parseExpression(locked.name(), TEMPLATE);
        } catch (ParseException e) {
            throw new LockConfigurationException(where + ": name = \"" + locked.name() + "\" is not a valid template ("
                    + e.getMessage() + "); write literal text with SpEL in #{...}, e.g. \"invoice-#{#id}\"");
        }
        if (locked.name().isBlank()) {
            throw new LockConfigurationException(
                    where + ": name is empty; give the lock a name such as" + " \"invoice-#{#id}\"");
        }
        checkVariables(method, locked.name(), where);
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

    /** A template that names a parameter the method lacks would silently resolve it to null. */
    private static void checkVariables(Method method, String template, String where) {
        String[] names = PARAMETER_NAMES.getParameterNames(method);
        Matcher matcher = VARIABLE.matcher(template);
        while (matcher.find()) {
            String variable = matcher.group(1);
            if (BUILT_IN.contains(variable) || POSITIONAL.matcher(variable).matches()) {
                continue;
            }
            if (names == null) {
                throw new LockConfigurationException(where + ": name = \"" + template + "\" refers to #" + variable
                        + " but the parameter names of the method are not available; compile with -parameters"
                        + " (maven-compiler-plugin <parameters>true</parameters>) or refer to it as #p0, #p1, ...");
            }
            if (!Arrays.asList(names).contains(variable)) {
                throw new LockConfigurationException(where + ": name = \"" + template + "\" refers to #" + variable
                        + " but the method has no parameter of that name; its parameters are "
                        + Arrays.toString(names));
            }
        }
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
            duration = DurationStyle.detectAndParse(value.trim());
        } catch (IllegalArgumentException e) {
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
            Expression name,
            Duration waitTime,
            Duration leaseTime,
            Duration lockAtLeastFor,
            Supplier<Object> skipped) {

        boolean skipsIfLocked() {
            return skipped != null;
        }
    }

    /** Resolves the lock name of one call. */
    String resolveName(LockedMethod locked, Method method, Object target, Object[] arguments) {
        MethodBasedEvaluationContext context =
                new MethodBasedEvaluationContext(target, method, arguments, PARAMETER_NAMES);
        context.setBeanResolver(new BeanFactoryResolver(beanFactory));
        Object value;
        try {
            value = locked.name().getValue(context);
        } catch (RuntimeException e) {
            throw new LockConfigurationException(
                    locked.where() + ": name = \"" + locked.template() + "\" could not be evaluated for this call: "
                            + e.getMessage(),
                    e);
        }
        String resolved = value == null ? null : value.toString();
        if (resolved == null || resolved.isEmpty()) {
            throw new LockConfigurationException(locked.where() + ": name = \"" + locked.template()
                    + "\" resolved to an empty name for arguments " + Arrays.toString(arguments)
                    + "; make the template yield a non-empty name for every call");
        }
        return resolved;
    }
}
