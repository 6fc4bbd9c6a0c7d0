package io.amqpservlet.jetty;

import io.amqpservlet.protocol.ModuleApi;
import org.junit.jupiter.api.Test;

import java.lang.module.ModuleDescriptor;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Jetty library's module exports exactly its stated package (docs/design.md §8), its API is closed, and
 * jetty-security is an optional (static) dependency, as it is in the pom.
 */
class ModuleDescriptorTest {
    @Test
    void exportsExactlyTheStatedPackages() {
        ModuleDescriptor descriptor = ModuleApi.descriptorOf(AmqpConnectionFactory.class);
        assertEquals("io.amqpservlet.jetty", descriptor.name());
        assertEquals(Set.of("io.amqpservlet.jetty"), ModuleApi.unqualifiedExports(descriptor));
        assertEquals(1, descriptor.exports().size(), "no qualified exports: " + descriptor.exports());
    }

    @Test
    void jettySecurityIsOptional() {
        ModuleDescriptor descriptor = ModuleApi.descriptorOf(AmqpConnectionFactory.class);
        ModuleDescriptor.Requires security = descriptor.requires().stream()
                .filter(r -> r.name().equals("org.eclipse.jetty.security")).findFirst().orElseThrow();
        assertEquals(Set.of(ModuleDescriptor.Requires.Modifier.STATIC, ModuleDescriptor.Requires.Modifier.TRANSITIVE),
                security.modifiers(), "optional, and readable by whoever reads this module: its API names it");
    }

    @Test
    void exportedApiNamesOnlyExportedTypes() {
        List<String> leaks = ModuleApi.leaks(AmqpConnectionFactory.class);
        assertTrue(leaks.isEmpty(), String.join("\n", leaks));
    }
}
