package io.amqpservlet.micrometer;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The artifact's run-time dependencies are a stated list (docs/jetty.md, "Micrometer meters"): amqp-servlet-jetty
 * with what it brings, and micrometer-core with what it brings; no registry (Prometheus or any other is the
 * application's choice) and no logging binding. The build writes the resolved runtime tree ({@code dependency:list})
 * before the tests run.
 */
class DependencyListTest {
    /** amqp-servlet-jetty and what it brings (its own DependencyListTest states the list). */
    private static final Set<String> JETTY_LIBRARY = Set.of(
            "io.amqpservlet:amqp-servlet-jetty",
            "io.amqpservlet:amqp-servlet-connector",
            "io.amqpservlet:amqp-servlet-protocol",
            "org.eclipse.jetty:jetty-server",
            "org.eclipse.jetty:jetty-http",
            "org.eclipse.jetty:jetty-io",
            "org.eclipse.jetty:jetty-util",
            "org.slf4j:slf4j-api");

    /** micrometer-core and what it brings to every application that has Micrometer. */
    private static final Set<String> MICROMETER = Set.of(
            "io.micrometer:micrometer-core",
            "io.micrometer:micrometer-commons",
            "io.micrometer:micrometer-observation",
            "org.jspecify:jspecify",
            "org.hdrhistogram:HdrHistogram");

    /** Optional as in amqp-servlet-jetty: never brought in. */
    private static final Set<String> OPTIONAL = Set.of("org.eclipse.jetty:jetty-security");

    @Test
    void runtimeDependenciesAreTheJettyLibraryAndMicrometerCore() throws IOException {
        Set<String> required = new TreeSet<>();
        Set<String> optional = new TreeSet<>();
        for (String line : resolvedLines()) {
            // "   group:artifact:jar:version:scope [(optional)] -- module name"
            String[] coordinates = line.trim().split(" ")[0].split(":");
            String key = coordinates[0] + ":" + coordinates[1];
            (line.contains("(optional)") ? optional : required).add(key);
        }
        Set<String> stated = new TreeSet<>(JETTY_LIBRARY);
        stated.addAll(MICROMETER);
        assertEquals(stated, required, "the meters' runtime dependencies changed: update docs/jetty.md and this list"
                + " only if every application that reports the connector's meters should carry the new ones");
        assertEquals(new TreeSet<>(OPTIONAL), optional);
    }

    @Test
    void bringsNoRegistryNorLoggingBinding() throws IOException {
        for (String line : resolvedLines()) {
            for (String forbidden : List.of("micrometer-registry", "prometheus", "slf4j-impl", "logback", "log4j",
                    "slf4j-simple")) {
                assertFalse(line.contains(forbidden), line);
            }
        }
    }

    private static List<String> resolvedLines() throws IOException {
        String file = System.getProperty("runtime.dependencies");
        List<String> lines = Files.readAllLines(Path.of(file == null ? "target/runtime-dependencies.txt" : file));
        return lines.stream().filter(l -> l.startsWith("   ") && l.contains(":jar:")).toList();
    }
}
