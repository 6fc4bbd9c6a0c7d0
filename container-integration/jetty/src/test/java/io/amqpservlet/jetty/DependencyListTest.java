package io.amqpservlet.jetty;

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
 * The connector library's run-time dependencies are a stated list (docs/jetty.md, "Maven coordinates"): a Jetty
 * application that adds this artifact gets jetty-server, our engine and codec, and nothing else. No servlet
 * implementation, no HTTP/2, no webapp support and, above all, no logging binding, which would collide with the
 * application's own. The build writes the resolved runtime tree ({@code dependency:list}) before the tests run.
 */
class DependencyListTest {
    /** What every user of the artifact gets on the class path. */
    private static final Set<String> STATED = Set.of(
            "io.amqpservlet:amqp-servlet-connector",
            "io.amqpservlet:amqp-servlet-protocol",
            "org.eclipse.jetty:jetty-server",
            "org.eclipse.jetty:jetty-http",
            "org.eclipse.jetty:jetty-io",
            "org.eclipse.jetty:jetty-util",
            "org.slf4j:slf4j-api");

    /** Used when the application has it (SASL PLAIN against a LoginService, AmqpAuthenticator); never brought in. */
    private static final Set<String> OPTIONAL = Set.of("org.eclipse.jetty:jetty-security");

    @Test
    void runtimeDependenciesAreExactlyTheStatedList() throws IOException {
        Set<String> required = new TreeSet<>();
        Set<String> optional = new TreeSet<>();
        for (String line : resolvedLines()) {
            // "   group:artifact:jar:version:scope [(optional)] -- module name"
            String[] coordinates = line.trim().split(" ")[0].split(":");
            String key = coordinates[0] + ":" + coordinates[1];
            (line.contains("(optional)") ? optional : required).add(key);
        }
        assertEquals(new TreeSet<>(STATED), required,
                "the connector library's runtime dependencies changed: update docs/jetty.md and this list only if"
                        + " every Jetty application should now carry the new ones");
        assertEquals(new TreeSet<>(OPTIONAL), optional);
    }

    @Test
    void bringsNoLoggingBindingServletImplementationOrHttp2() throws IOException {
        for (String line : resolvedLines()) {
            for (String forbidden : List.of("slf4j-impl", "logback", "log4j", "slf4j-simple", "jetty-ee", "servlet-api",
                    "http2", "webapp")) {
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
