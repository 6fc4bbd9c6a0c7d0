package io.amqpservlet.spring;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The starter's run-time dependencies are the connector library, its meters and what Boot's Jetty web server brings,
 * nothing else (docs/spring-boot.md): a Boot application that adds it gets no new library but ours. Micrometer (the
 * meters' micrometer-core among it), Boot's health support and Spring Security are optional: used when the
 * application has them. No logging binding: Boot
 * brings its own. The build writes the resolved runtime tree ({@code dependency:list}) before the tests run.
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

    /** amqp-servlet-micrometer without its micrometer-core, which is the application's (optional below). */
    private static final Set<String> METERS = Set.of("io.amqpservlet:amqp-servlet-micrometer");

    /** What spring-boot-jetty and spring-boot-autoconfigure bring: every Boot application on Jetty has these. */
    private static final Set<String> BOOT_ON_JETTY = Set.of(
            "org.springframework.boot:spring-boot",
            "org.springframework.boot:spring-boot-autoconfigure",
            "org.springframework.boot:spring-boot-jetty",
            "org.springframework.boot:spring-boot-web-server",
            "org.springframework:spring-aop",
            "org.springframework:spring-beans",
            "org.springframework:spring-context",
            "org.springframework:spring-core",
            "org.springframework:spring-expression",
            "org.springframework:spring-web",
            "commons-logging:commons-logging",
            "io.micrometer:micrometer-commons",
            "io.micrometer:micrometer-observation",
            "org.jspecify:jspecify",
            "jakarta.servlet:jakarta.servlet-api",
            "org.eclipse.jetty:jetty-security",
            "org.eclipse.jetty:jetty-session",
            "org.eclipse.jetty:jetty-xml",
            "org.eclipse.jetty.ee:jetty-ee-webapp",
            "org.eclipse.jetty.ee11:jetty-ee11-servlet",
            "org.eclipse.jetty.ee11:jetty-ee11-webapp",
            "org.eclipse.jetty.compression:jetty-compression-common",
            "org.eclipse.jetty.compression:jetty-compression-gzip",
            "org.eclipse.jetty.compression:jetty-compression-server");

    /** Used when the application has them, never brought in (with what they would bring). */
    private static final Set<String> OPTIONAL = Set.of(
            "io.micrometer:micrometer-core",
            "org.hdrhistogram:HdrHistogram",
            "org.latencyutils:LatencyUtils",
            "org.springframework.boot:spring-boot-health",
            "org.springframework.security:spring-security-config",
            "org.springframework.security:spring-security-core",
            "org.springframework.security:spring-security-crypto",
            "org.springframework.security:spring-security-web",
            "org.springframework.boot:spring-boot-configuration-processor");

    @Test
    void runtimeDependenciesAreTheJettyLibraryAndWhatBootBrings() throws IOException {
        Set<String> required = new TreeSet<>();
        Set<String> optional = new TreeSet<>();
        for (String line : resolvedLines()) {
            // "   group:artifact:jar:version:scope [(optional)] -- module name"
            String[] coordinates = line.trim().split(" ")[0].split(":");
            String key = coordinates[0] + ":" + coordinates[1];
            (line.contains("(optional)") ? optional : required).add(key);
        }
        assertEquals(Stream.of(JETTY_LIBRARY, METERS, BOOT_ON_JETTY).flatMap(Set::stream)
                        .collect(Collectors.toCollection(TreeSet::new)), required,
                "the starter's runtime dependencies changed: update docs/spring-boot.md and this list only if every"
                        + " Boot application that adds the starter should carry the new ones");
        assertEquals(new TreeSet<>(OPTIONAL), optional);
    }

    @Test
    void bringsNoLoggingBinding() throws IOException {
        for (String line : resolvedLines()) {
            for (String forbidden : List.of("slf4j-impl", "logback", "log4j", "slf4j-simple", "spring-boot-starter")) {
                assertFalse(line.contains(forbidden), line);
            }
        }
    }

    /** The resolved runtime list, one dependency a line. */
    static List<String> resolvedLines() throws IOException {
        String file = System.getProperty("runtime.dependencies");
        List<String> lines = Files.readAllLines(Path.of(file == null ? "target/runtime-dependencies.txt" : file));
        return lines.stream().filter(l -> l.startsWith("   ") && l.contains(":jar:")).toList();
    }
}
