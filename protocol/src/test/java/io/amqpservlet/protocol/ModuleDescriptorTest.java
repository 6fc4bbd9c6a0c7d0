package io.amqpservlet.protocol;

import io.amqpservlet.protocol.codec.AmqpReader;
import org.junit.jupiter.api.Test;

import java.lang.module.ModuleDescriptor;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The codec library's module exports exactly its stated packages (docs/design.md §8), and its API is closed. */
class ModuleDescriptorTest {
    private static final Set<String> STATED = Set.of(
            "io.amqpservlet.protocol.codec",
            "io.amqpservlet.protocol.frame",
            "io.amqpservlet.protocol.json",
            "io.amqpservlet.protocol.message",
            "io.amqpservlet.protocol.text",
            "io.amqpservlet.protocol.types",
            "io.amqpservlet.protocol.types.messaging",
            "io.amqpservlet.protocol.types.sasl",
            "io.amqpservlet.protocol.types.transport",
            "io.amqpservlet.protocol.value");

    @Test
    void exportsExactlyTheStatedPackages() {
        ModuleDescriptor descriptor = ModuleApi.descriptorOf(AmqpReader.class);
        assertEquals("io.amqpservlet.protocol", descriptor.name());
        assertEquals(new TreeSet<>(STATED), new TreeSet<>(ModuleApi.unqualifiedExports(descriptor)));
        assertEquals(STATED.size(), descriptor.exports().size(), "no qualified exports: " + descriptor.exports());
        assertEquals(Set.of("java.base"), requiredModules(descriptor), "the codec depends on nothing");
    }

    @Test
    void exportedApiNamesOnlyExportedTypes() {
        List<String> leaks = ModuleApi.leaks(AmqpReader.class);
        assertTrue(leaks.isEmpty(), String.join("\n", leaks));
    }

    private static Set<String> requiredModules(ModuleDescriptor descriptor) {
        Set<String> out = new TreeSet<>();
        for (ModuleDescriptor.Requires r : descriptor.requires()) {
            out.add(r.name());
        }
        return out;
    }
}
