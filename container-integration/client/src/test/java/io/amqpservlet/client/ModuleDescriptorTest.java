package io.amqpservlet.client;

import io.amqpservlet.protocol.ModuleApi;
import org.junit.jupiter.api.Test;

import java.lang.module.ModuleDescriptor;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The client library's module exports exactly its stated package (docs/design.md §8), and its API is closed. */
class ModuleDescriptorTest {
    @Test
    void exportsExactlyTheStatedPackages() {
        ModuleDescriptor descriptor = ModuleApi.descriptorOf(AmqpRequestClient.class);
        assertEquals("io.amqpservlet.client", descriptor.name());
        assertEquals(Set.of("io.amqpservlet.client"), ModuleApi.unqualifiedExports(descriptor));
        assertEquals(1, descriptor.exports().size(), "no qualified exports: " + descriptor.exports());
    }

    @Test
    void exportedApiNamesOnlyExportedTypes() {
        List<String> leaks = ModuleApi.leaks(AmqpRequestClient.class);
        assertTrue(leaks.isEmpty(), String.join("\n", leaks));
    }
}
