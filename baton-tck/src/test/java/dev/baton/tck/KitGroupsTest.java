package dev.baton.tck;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * Every group of the kit may run beside the others when a module turns on parallel execution, and
 * the test that counts the JVM's threads still runs alone: each group is declared concurrent, and
 * every test of every group holds {@link LockBackendContract#JVM_THREADS} (a group's tests through
 * the group, the thread-counting test exclusively). A group added without these would run beside
 * the thread count and make it see threads that are not the closed client's.
 */
class KitGroupsTest {

    private static List<Class<?>> groups() {
        return Arrays.stream(LockBackendContract.class.getDeclaredClasses())
                .filter(type -> type.isAnnotationPresent(Nested.class))
                .toList();
    }

    @Test
    void everyGroupIsConcurrent() {
        assertThat(groups()).isNotEmpty().allSatisfy(group -> assertThat(
                        AnnotationSupport.findAnnotation(group, Execution.class))
                .as("@Execution of %s (directly or through @SharesTheJvm)", group.getSimpleName())
                .get()
                .extracting(Execution::value)
                .isEqualTo(ExecutionMode.CONCURRENT));
    }

    @Test
    void everyTestOfEveryGroupHoldsTheThreadsLock() {
        for (Class<?> group : groups()) {
            // As JUnit reads it: directly or through a composed annotation (@SharesTheJvm)
            ResourceLock onGroup = AnnotationSupport.findRepeatableAnnotations(group, ResourceLock.class).stream()
                    .findFirst()
                    .orElse(null);
            if (onGroup != null) {
                assertThat(onGroup.value()).isEqualTo(LockBackendContract.JVM_THREADS);
                assertThat(onGroup.mode()).isEqualTo(ResourceAccessMode.READ);
                continue;
            }
            for (Class<?> type = group; type != Object.class; type = type.getSuperclass()) {
                for (Method method : type.getDeclaredMethods()) {
                    if (!method.isAnnotationPresent(Test.class)) {
                        continue;
                    }
                    ResourceLock onTest = method.getAnnotation(ResourceLock.class);
                    assertThat(onTest)
                            .as("@ResourceLock(JVM_THREADS) on %s.%s", group.getSimpleName(), method.getName())
                            .isNotNull();
                    assertThat(onTest.value()).isEqualTo(LockBackendContract.JVM_THREADS);
                }
            }
        }
    }
}
