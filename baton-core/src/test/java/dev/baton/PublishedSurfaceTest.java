package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The core publishes {@code dev.baton} and {@code dev.baton.spi}; its machinery stays inside. */
class PublishedSurfaceTest {

    @Test
    void theModuleExportsTheApiAndTheSpiOnly() throws IOException {
        ModuleDescriptor descriptor = descriptor();

        assertThat(descriptor.name()).isEqualTo("dev.baton.core");
        assertThat(descriptor.exports())
                .allMatch(exports -> !exports.isQualified())
                .extracting(ModuleDescriptor.Exports::source)
                .containsExactlyInAnyOrder("dev.baton", "dev.baton.spi");
        assertThat(descriptor.opens()).isEmpty();
        assertThat(descriptor.uses()).containsExactly("dev.baton.spi.LockBackendProvider");
        assertThat(descriptor.requires())
                .extracting(ModuleDescriptor.Requires::name)
                .containsExactlyInAnyOrder("java.base", "org.slf4j");
    }

    /**
     * The whole published surface. A type added here is a promise to every application (API) or
     * backend (SPI) from then on: this list changes only on purpose.
     */
    @Test
    void theApiAndTheSpiAreExactlyTheseTypes() throws Exception {
        assertThat(publicTypes("dev.baton"))
                .containsExactlyInAnyOrder(
                        "Baton",
                        "DistributedLock",
                        "DistributedReadWriteLock",
                        "DistributedSemaphore",
                        "Holder",
                        "Leadership",
                        "LeadershipListener",
                        "LeadershipListener$Reason",
                        "Lease",
                        "LockAdmin",
                        "LockClient",
                        "LockConfigurationException",
                        "LockException",
                        "LockInfo",
                        "LockKind",
                        "LockListener",
                        "LockListener$AcquireOutcome",
                        "LockListener$Acquisition",
                        "LockLostException",
                        "LockMode",
                        "LockOptions",
                        "LockOptions$Builder",
                        "LockTimeoutException",
                        "LockUnavailableException");
        assertThat(publicTypes("dev.baton.spi"))
                .containsExactlyInAnyOrder(
                        "BlockingWait",
                        "ForwardingLockBackend",
                        "Grant",
                        "Grant$Builder",
                        "LeaseDeadline",
                        "LockBackend",
                        "LockBackendProvider",
                        "LockNames",
                        "LockRequest",
                        "LockRequest$Builder",
                        "ReleaseNotifications",
                        "ReleaseNotifications$Subscription",
                        "UriOptions",
                        "WaitQueue",
                        "WaitQueue$Entry",
                        "WaitQueue$Membership",
                        "Waiting",
                        "Waiting$Form");
    }

    /** Values a backend makes or reads grow without breaking it: final classes made by factories. */
    @Test
    void valueTypesAreFinalClassesWithoutPublicConstructors() {
        for (Class<?> type : List.of(
                dev.baton.spi.Grant.class,
                dev.baton.spi.LockRequest.class,
                dev.baton.spi.Waiting.class,
                LockInfo.class,
                Holder.class,
                LockOptions.class)) {
            assertThat(type.isRecord()).as("%s is a record", type).isFalse();
            assertThat(Modifier.isFinal(type.getModifiers()))
                    .as("%s is final", type)
                    .isTrue();
            assertThat(type.getConstructors())
                    .as("public constructors of %s", type)
                    .isEmpty();
        }
    }

    /** An operator's view of a backend speaks the API, not the SPI. */
    @Test
    void lockAdminSpeaksApiTypes() {
        for (java.lang.reflect.Method method : LockAdmin.class.getMethods()) {
            assertThat(method.getGenericReturnType().getTypeName())
                    .as("%s returns", method)
                    .doesNotContain("dev.baton.spi.");
            for (java.lang.reflect.Type parameter : method.getGenericParameterTypes()) {
                assertThat(parameter.getTypeName()).as("%s takes", method).doesNotContain("dev.baton.spi.");
            }
        }
    }

    private static List<String> publicTypes(String packageName) throws IOException {
        Path dir = classesRoot().resolve(packageName.replace('.', '/'));
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(file -> file.getFileName().toString())
                    .filter(name -> name.endsWith(".class") && !name.equals("package-info.class"))
                    .map(name -> name.substring(0, name.length() - ".class".length()))
                    .filter(name -> isPublicType(packageName + "." + name))
                    .toList();
        }
    }

    @Test
    void theInternalPackageHasOnePublicTypeTheDoorBatonOpensClientsThrough() throws Exception {
        Path internal = classesRoot().resolve("dev/baton/internal");
        List<String> publicTypes;
        try (Stream<Path> files = Files.list(internal)) {
            publicTypes = files.map(file -> file.getFileName().toString())
                    .filter(name -> name.endsWith(".class"))
                    .map(name -> "dev.baton.internal." + name.substring(0, name.length() - ".class".length()))
                    .filter(PublishedSurfaceTest::isPublicType)
                    .toList();
        }

        assertThat(publicTypes).containsExactly("dev.baton.internal.Clients");
    }

    private static boolean isPublicType(String binaryName) {
        try {
            for (Class<?> type = Class.forName(binaryName, false, Baton.class.getClassLoader());
                    type != null;
                    type = type.getEnclosingClass()) {
                if (!Modifier.isPublic(type.getModifiers()) || type.isAnonymousClass() || type.isLocalClass()) {
                    return false;
                }
            }
            return true;
        } catch (ClassNotFoundException e) {
            throw new AssertionError(e);
        }
    }

    /** The descriptor the JVM runs the core with, or the compiled one when the tests run on the class path. */
    private static ModuleDescriptor descriptor() throws IOException {
        Module module = Baton.class.getModule();
        if (module.isNamed()) {
            return module.getDescriptor();
        }
        try (InputStream in = Files.newInputStream(classesRoot().resolve("module-info.class"))) {
            return ModuleDescriptor.read(in);
        }
    }

    private static Path classesRoot() {
        try {
            return Path.of(Baton.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
        } catch (URISyntaxException e) {
            throw new AssertionError(e);
        }
    }
}
