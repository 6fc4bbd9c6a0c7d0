package io.amqpservlet.connector;

import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.connector.engine.Link;
import io.amqpservlet.connector.engine.Session;
import io.amqpservlet.protocol.ModuleApi;
import org.junit.jupiter.api.Test;

import java.lang.module.ModuleDescriptor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The engine library's module exports exactly its stated packages (docs/design.md §8), its API is closed, and
 * credit and session windows change only through the engine (a flow it sends or receives).
 */
class ModuleDescriptorTest {
    private static final Set<String> STATED = Set.of(
            "io.amqpservlet.connector.engine",
            "io.amqpservlet.connector.sasl");

    @Test
    void exportsExactlyTheStatedPackages() {
        ModuleDescriptor descriptor = ModuleApi.descriptorOf(Engine.class);
        assertEquals("io.amqpservlet.connector", descriptor.name());
        assertEquals(new TreeSet<>(STATED), new TreeSet<>(ModuleApi.unqualifiedExports(descriptor)));
        assertEquals(STATED.size(), descriptor.exports().size(), "no qualified exports: " + descriptor.exports());
        assertTrue(descriptor.requires().stream().anyMatch(r -> r.name().equals("io.amqpservlet.protocol")
                && r.modifiers().contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE)),
                "the engine's API speaks the codec's types: " + descriptor.requires());
    }

    @Test
    void exportedApiNamesOnlyExportedTypes() {
        List<String> leaks = ModuleApi.leaks(Engine.class);
        assertTrue(leaks.isEmpty(), String.join("\n", leaks));
    }

    @Test
    void creditAndSessionWindowsAreNotReachableFromTheApi() throws ClassNotFoundException {
        for (String internal : List.of("LinkCredit", "SessionWindow")) {
            Class<?> type = Class.forName("io.amqpservlet.connector.engine." + internal);
            assertFalse(Modifier.isPublic(type.getModifiers()), internal + " is the engine's own state");
        }
        for (Class<?> api : List.of(Engine.class, Session.class, Link.class)) {
            for (Method m : api.getMethods()) {
                String returned = m.getReturnType().getSimpleName();
                assertFalse(returned.equals("LinkCredit") || returned.equals("SessionWindow"),
                        api.getSimpleName() + "." + m.getName() + " hands out " + returned);
            }
        }
    }
}
