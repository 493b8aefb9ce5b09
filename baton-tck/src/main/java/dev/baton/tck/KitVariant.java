package dev.baton.tck;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares a kit test class a variant of another one: the same backend configuration reached in
 * another way (through an application's DataSource, with an explicit option that the other class's
 * default already implies, ...), so that only the groups where the variant's wire path differs run
 * here ({@link LockBackendContract}'s {@code KitVariants} condition decides). The tests of every other
 * group are skipped, each with a message naming the class whose run
 * covers it, so reports count them as skipped, not as passed.
 *
 * <p>The annotated class's Javadoc says, for every group it leaves out, why the variant adds
 * nothing there (typically: the group reaches the server through {@link LockBackendFixture#uri()}
 * or a proxy, which is the other class's path; or it exercises only what the two share).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface KitVariant {
    /**
     * The class whose whole kit run this one would repeat; itself not a variant.
     *
     * @return the test class that runs every group on the configuration this one varies
     */
    Class<? extends LockBackendContract> of();

    /**
     * The groups that run here: those where this variant's wire path differs from {@link #of()}'s.
     *
     * @return at least one group
     */
    KitGroup[] runs();
}
