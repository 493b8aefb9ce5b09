package dev.baton.quarkus;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@link Locked#name()} template: literal text with {@code #{...}} expressions, each a parameter
 * (by name, or {@code #pN}/{@code #aN}) followed by property steps. The subset of SpEL that the
 * Spring starters' names use, without an expression engine; parsed once per method.
 */
final class NameTemplate {

    private static final Pattern EXPRESSION = Pattern.compile(
            "\\s*#([A-Za-z_$][A-Za-z0-9_$]*)((?:\\s*\\.\\s*[A-Za-z_$][A-Za-z0-9_$]*(?:\\s*\\(\\s*\\))?)*)\\s*");
    private static final Pattern STEP = Pattern.compile("\\.\\s*([A-Za-z_$][A-Za-z0-9_$]*)");
    private static final Pattern POSITIONAL = Pattern.compile("[pa]([0-9]+)");
    private static final ClassValue<Map<String, Method>> PROPERTIES = new ClassValue<>() {
        @Override
        protected Map<String, Method> computeValue(Class<?> type) {
            return new ConcurrentHashMap<>();
        }
    };

    /** Literal text (a String) or an expression (a Path), in order. */
    private final List<Object> parts;

    private NameTemplate(List<Object> parts) {
        this.parts = parts;
    }

    /** One {@code #{...}}: the argument's index and the property steps after it. */
    private record Path(String text, int argument, List<String> steps) {}

    /**
     * Parses a template against the method's parameters.
     *
     * @throws IllegalArgumentException with the reason (the caller adds the method and the fix)
     */
    static NameTemplate parse(String template, Method method) {
        List<Object> parts = new ArrayList<>();
        int at = 0;
        while (at < template.length()) {
            int open = template.indexOf("#{", at);
            if (open < 0) {
                parts.add(template.substring(at));
                break;
            }
            if (open > at) {
                parts.add(template.substring(at, open));
            }
            int close = template.indexOf('}', open + 2);
            if (close < 0) {
                throw new IllegalArgumentException("the expression at character " + open + " has no closing '}'");
            }
            parts.add(path(template.substring(open + 2, close), method));
            at = close + 1;
        }
        return new NameTemplate(List.copyOf(parts));
    }

    private static Path path(String text, Method method) {
        Matcher matcher = EXPRESSION.matcher(text);
        if (!matcher.matches()) {
            throw new IllegalArgumentException("#{" + text + "} is not an argument with property steps; the Quarkus"
                    + " extension evaluates #{#name}, #{#p0} and #{#name.property} (or .property()), not"
                    + " other SpEL");
        }
        String root = matcher.group(1);
        Parameter[] parameters = method.getParameters();
        int argument = -1;
        Matcher positional = POSITIONAL.matcher(root);
        if (positional.matches()) {
            argument = Integer.parseInt(positional.group(1));
            if (argument >= parameters.length) {
                throw new IllegalArgumentException(
                        "#" + root + " is past the method's " + parameters.length + " parameter(s)");
            }
        } else {
            for (int i = 0; i < parameters.length; i++) {
                if (!parameters[i].isNamePresent()) {
                    throw new IllegalArgumentException("it refers to #" + root + " but the parameter names of the"
                            + " method are not available; compile with -parameters (maven-compiler-plugin"
                            + " <parameters>true</parameters>) or refer to it as #p0, #p1, ...");
                }
                if (parameters[i].getName().equals(root)) {
                    argument = i;
                }
            }
            if (argument < 0) {
                throw new IllegalArgumentException("it refers to #" + root
                        + " but the method has no parameter of that name; its parameters are "
                        + Arrays.toString(Arrays.stream(parameters)
                                .map(Parameter::getName)
                                .toArray()));
            }
        }
        List<String> steps = new ArrayList<>();
        Matcher step = STEP.matcher(matcher.group(2));
        while (step.find()) {
            steps.add(step.group(1));
        }
        return new Path("#{" + text + "}", argument, List.copyOf(steps));
    }

    /**
     * The name for one call's arguments.
     *
     * @throws IllegalArgumentException when a step meets {@code null} or a type without the property
     */
    String resolve(Object[] arguments) {
        StringBuilder name = new StringBuilder();
        for (Object part : parts) {
            if (part instanceof Path path) {
                Object value = arguments[path.argument()];
                for (String step : path.steps()) {
                    if (value == null) {
                        throw new IllegalArgumentException(path.text() + " meets null before ." + step);
                    }
                    value = property(value, step, path);
                }
                if (value != null) {
                    name.append(value);
                }
            } else {
                name.append((String) part);
            }
        }
        return name.toString();
    }

    private static Object property(Object value, String step, Path path) {
        Method reader = PROPERTIES.get(value.getClass()).computeIfAbsent(step, s -> reader(value.getClass(), s));
        if (reader == null) {
            throw new IllegalArgumentException(
                    path.text() + ": " + value.getClass().getName() + " has no public " + step + "(), get"
                            + capitalized(step) + "() or is" + capitalized(step) + "()");
        }
        try {
            return reader.invoke(value);
        } catch (IllegalAccessException e) {
            throw new IllegalArgumentException(path.text() + ": " + reader + " cannot be called: " + e.getMessage(), e);
        } catch (InvocationTargetException e) {
            throw new IllegalArgumentException(path.text() + ": " + reader + " threw " + e.getCause(), e.getCause());
        }
    }

    private static Method reader(Class<?> type, String step) {
        for (String name : List.of(step, "get" + capitalized(step), "is" + capitalized(step))) {
            try {
                Method method = type.getMethod(name);
                if (method.getReturnType() == void.class) {
                    continue;
                }
                // A public accessor of a non-public class (a record nested in a package-private
                // class, say) is public but not callable through that class without this.
                if (!Modifier.isPublic(method.getDeclaringClass().getModifiers())) {
                    method.trySetAccessible();
                }
                return method;
            } catch (NoSuchMethodException e) {
                // try the next form
            }
        }
        return null;
    }

    private static String capitalized(String step) {
        return step.substring(0, 1).toUpperCase(Locale.ROOT) + step.substring(1);
    }
}
