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
