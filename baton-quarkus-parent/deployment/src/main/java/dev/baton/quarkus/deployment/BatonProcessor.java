package dev.baton.quarkus.deployment;

import io.quarkus.arc.deployment.AdditionalBeanBuildItem;
import io.quarkus.arc.deployment.BeanArchiveIndexBuildItem;
import io.quarkus.bootstrap.classloading.QuarkusClassLoader;
import io.quarkus.deployment.Capabilities;
import io.quarkus.deployment.Capability;
import io.quarkus.deployment.annotations.BuildProducer;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.builditem.FeatureBuildItem;
import io.quarkus.deployment.builditem.GeneratedResourceBuildItem;
import io.quarkus.deployment.metrics.MetricsCapabilityBuildItem;
import io.quarkus.runtime.metrics.MetricsFactory;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.TreeSet;
import org.jboss.jandex.AnnotationInstance;
import org.jboss.jandex.AnnotationTarget;
import org.jboss.jandex.DotName;

/**
 * The build steps of Baton's extension: the client's producer and the {@code @Locked} interceptor as
 * beans, the list of classes with {@code @Locked} methods (checked at startup), and the health check
 * and meters when their extensions are present. Public only because Quarkus instantiates it; not
 * API.
 */
public final class BatonProcessor {

    /** Made by Quarkus when it runs the build steps. */
    public BatonProcessor() {}

    private static final String FEATURE = "baton";
    private static final String PACKAGE = "dev.baton.quarkus.";
    private static final DotName LOCKED = DotName.createSimple(PACKAGE + "Locked");
    // Written here, read by dev.baton.quarkus.LockedMethods at startup (its RESOURCE).
    private static final String LOCKED_CLASSES = "META-INF/baton-quarkus/locked-classes";

    @BuildStep
    FeatureBuildItem feature() {
        return new FeatureBuildItem(FEATURE);
    }

    @BuildStep
    void beans(
            Capabilities capabilities,
            Optional<MetricsCapabilityBuildItem> metrics,
            BuildProducer<AdditionalBeanBuildItem> beans) {
        beans.produce(AdditionalBeanBuildItem.builder()
                .addBeanClasses(
                        PACKAGE + "BatonClientProducer", PACKAGE + "LockedInterceptor", PACKAGE + "LockedMethods")
                .setUnremovable()
                .build());
        if (capabilities.isPresent(Capability.SMALLRYE_HEALTH)) {
            beans.produce(AdditionalBeanBuildItem.unremovableOf(PACKAGE + "runtime.BatonHealthCheck"));
        }
        // Meters need quarkus-micrometer and baton-micrometer (an optional dependency of the runtime module).
        if (metrics.map(m -> m.metricsSupported(MetricsFactory.MICROMETER)).orElse(false)
                && QuarkusClassLoader.isClassPresentAtRuntime("dev.baton.micrometer.BatonMeters")) {
            beans.produce(AdditionalBeanBuildItem.unremovableOf(PACKAGE + "runtime.BatonMetersCustomizer"));
        }
    }

    @BuildStep
    GeneratedResourceBuildItem lockedClasses(BeanArchiveIndexBuildItem index) {
        TreeSet<String> classes = new TreeSet<>();
        for (AnnotationInstance locked : index.getIndex().getAnnotations(LOCKED)) {
            AnnotationTarget target = locked.target();
            if (target.kind() == AnnotationTarget.Kind.METHOD) {
                classes.add(target.asMethod().declaringClass().name().toString());
            } else if (target.kind() == AnnotationTarget.Kind.CLASS) {
                String name = target.asClass().name().toString();
                if (!name.equals(PACKAGE + "LockedInterceptor")) {
                    classes.add(name);
                }
            }
        }
        return new GeneratedResourceBuildItem(
                LOCKED_CLASSES, String.join("\n", classes).getBytes(StandardCharsets.UTF_8));
    }
}
