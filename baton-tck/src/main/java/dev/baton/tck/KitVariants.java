package dev.baton.tck;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * Skips, in a test class marked {@link KitVariant}, the tests of every group it does not run, each
 * with a message that names the class whose run covers it. Decided per test (not per group), so that
 * every skipped test shows in the reports with that message. Classes without the mark run every
 * group, unless a developer names the groups to run ({@link #ONLY_PROPERTY}).
 */
final class KitVariants implements ExecutionCondition {
    /**
     * A developer's filter: {@code -Dbaton.kit.groups=ASYNC,TIMEOUTS} runs only those groups of every
     * kit class ({@link KitGroup} names), to iterate on one property without the whole kit.
     */
    static final String ONLY_PROPERTY = "baton.kit.groups";

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (context.getTestMethod().isEmpty()) {
            return ConditionEvaluationResult.enabled("groups are decided per test");
        }
        Optional<KitGroup> chosen = KitGroup.of(context.getRequiredTestClass());
        String only = System.getProperty(ONLY_PROPERTY, "").trim();
        if (!only.isEmpty()
                && chosen.isPresent()
                && !Arrays.asList(only.split("\\s*,\\s*")).contains(chosen.get().name())) {
            return ConditionEvaluationResult.disabled("-D" + ONLY_PROPERTY + "=" + only + " runs only those groups");
        }
        Optional<Class<?>> variantClass = variantClass(context);
        if (variantClass.isEmpty()) {
            return ConditionEvaluationResult.enabled("not a kit variant: every group runs");
        }
        KitVariant variant = variantClass.get().getAnnotation(KitVariant.class);
        check(variantClass.get(), variant);
        Optional<KitGroup> group = KitGroup.of(context.getRequiredTestClass());
        if (group.isEmpty()) {
            return ConditionEvaluationResult.enabled("not a test of a kit group");
        }
        List<KitGroup> runs = Arrays.asList(variant.runs());
        if (runs.contains(group.get())) {
            return ConditionEvaluationResult.enabled(group.get() + " is one of the variant's groups");
        }
        return ConditionEvaluationResult.disabled(variantClass.get().getSimpleName() + " is a variant of "
                + variant.of().getSimpleName() + " and runs only " + runs + "; " + group.get()
                + " takes the same path there and runs in " + variant.of().getSimpleName()
                + " (why: the Javadoc of " + variantClass.get().getSimpleName() + ")");
    }

    /** The innermost enclosing test class marked {@link KitVariant}, if any. */
    private static Optional<Class<?>> variantClass(ExtensionContext context) {
        for (Optional<ExtensionContext> at = Optional.of(context);
                at.isPresent();
                at = at.get().getParent()) {
            Optional<Class<?>> type = at.get().getTestClass();
            if (type.isPresent() && AnnotationSupport.isAnnotated(type.get(), KitVariant.class)) {
                return type;
            }
        }
        return Optional.empty();
    }

    private static void check(Class<?> type, KitVariant variant) {
        if (variant.runs().length == 0) {
            throw new ExtensionConfigurationException(
                    "@KitVariant on " + type.getName() + " runs no group; name the groups where it differs");
        }
        if (variant.of() == type || variant.of().isAnnotationPresent(KitVariant.class)) {
            throw new ExtensionConfigurationException("@KitVariant on " + type.getName() + " names "
                    + variant.of().getName() + ", which must be a class that runs the whole kit");
        }
    }
}
