package dev.baton.spring;

import dev.baton.LockConfigurationException;
import dev.baton.locked.internal.LockedMethod;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
 * template (SpEL) and durations (Boot's syntax); the checks and the rest of the parsing are every
 * framework's ({@link LockedMethod}). Parsing happens when a bean's proxy is made, so a bad annotation
 * fails the startup rather than the first call.
 */
final class LockedMethods {

    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    private static final TemplateParserContext TEMPLATE = new TemplateParserContext();
    private static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();
    private static final Pattern VARIABLE = Pattern.compile("#([A-Za-z_$][A-Za-z0-9_$]*)");
    private static final Pattern POSITIONAL = Pattern.compile("[pa][0-9]+");
    private static final Set<String> BUILT_IN = Set.of("root", "this");

    private final BeanFactory beanFactory;
    private final Map<Method, LockedMethod<Expression>> methods = new ConcurrentHashMap<>();

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
    LockedMethod<Expression> find(Method method, Class<?> targetClass) {
        Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
        LockedMethod<Expression> known = methods.get(specific);
        if (known != null) {
            return known;
        }
        Locked locked = AnnotatedElementUtils.findMergedAnnotation(specific, Locked.class);
        if (locked == null) {
            return null;
        }
        return methods.computeIfAbsent(specific, key -> parse(key, locked));
    }

    private static LockedMethod<Expression> parse(Method method, Locked locked) {
        LockedMethod.Annotation attributes = new LockedMethod.Annotation(
                locked.name(), locked.waitTime(), locked.leaseTime(), locked.lockAtLeastFor(), locked.skipIfLocked());
        return LockedMethod.parse(method, attributes, LockedMethods::parseName, DurationStyle::detectAndParse);
    }

    private static Expression parseName(Method method, String template, String where) {
        Expression name;
        try {
            name = PARSER.parseExpression(template, TEMPLATE);
        } catch (ParseException e) {
            throw new LockConfigurationException(where + ": name = \"" + template + "\" is not a valid template ("
                    + e.getMessage() + "); write literal text with SpEL in #{...}, e.g. \"invoice-#{#id}\"");
        }
        checkVariables(method, template, where);
        return name;
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

    /** Resolves the lock name of one call. */
    String resolveName(LockedMethod<Expression> locked, Method method, Object target, Object[] arguments) {
        MethodBasedEvaluationContext context =
                new MethodBasedEvaluationContext(target, method, arguments, PARAMETER_NAMES);
        context.setBeanResolver(new BeanFactoryResolver(beanFactory));
        return locked.resolve(() -> locked.name().getValue(context), arguments);
    }
}
