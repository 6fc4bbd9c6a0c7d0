package io.amqpservlet.micrometer;

import io.amqpservlet.protocol.ModuleApi;
import org.junit.jupiter.api.Test;

import java.lang.module.ModuleDescriptor;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The meters' module exports exactly its stated package (docs/design.md §8), its API is closed, and it passes on
 * both modules its API names: the connector's (the constructors take its types) and Micrometer's (the binders are
 * its {@code MeterBinder}s).
 */
class ModuleDescriptorTest {
    @Test
    void exportsExactlyTheStatedPackage() {
        ModuleDescriptor descriptor = ModuleApi.descriptorOf(AmqpConnectionFactoryMetrics.class);
        assertEquals("io.amqpservlet.micrometer", descriptor.name());
        assertEquals(Set.of("io.amqpservlet.micrometer"), ModuleApi.unqualifiedExports(descriptor));
        assertEquals(1, descriptor.exports().size(), "no qualified exports: " + descriptor.exports());
    }

    @Test
    void readsTheConnectorAndMicrometerTransitively() {
        ModuleDescriptor descriptor = ModuleApi.descriptorOf(AmqpConnectionFactoryMetrics.class);
        for (String module : List.of("io.amqpservlet.jetty", "micrometer.core")) {
            ModuleDescriptor.Requires requires = descriptor.requires().stream()
                    .filter(r -> r.name().equals(module)).findFirst().orElseThrow();
            assertEquals(Set.of(ModuleDescriptor.Requires.Modifier.TRANSITIVE), requires.modifiers(), module);
        }
    }

    @Test
    void exportedApiNamesOnlyExportedTypes() {
        List<String> leaks = ModuleApi.leaks(AmqpConnectionFactoryMetrics.class);
        assertTrue(leaks.isEmpty(), String.join("\n", leaks));
    }
}
