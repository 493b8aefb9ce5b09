package dev.baton.tck;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A kit group that may run beside the other groups of its test class and shares the JVM's threads
 * with them: it holds {@link LockBackendContract#JVM_THREADS} for reading, so the test that counts
 * the JVM's threads, which takes it for writing, runs alone.
 *
 * <p>A module that turns JUnit's parallel execution on (its {@code junit-platform.properties}, with
 * classes left {@code same_thread}) runs the groups of one test class side by side: they keep no
 * shared state (each test takes fresh lock names and its own clients and proxies), and mostly wait
 * on leases and timeouts. Without parallel execution the annotation changes nothing.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(value = LockBackendContract.JVM_THREADS, mode = ResourceAccessMode.READ)
@interface SharesTheJvm {}
