package io.amqpservlet.spring;

import io.micrometer.core.instrument.MeterRegistry;
import org.eclipse.jetty.util.Jetty;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The starter runs on the Jetty, Jakarta Servlet and Micrometer that its Spring Boot pins (its
 * {@code spring-boot-dependencies}), and so does amqp-servlet-jetty in these tests, whatever the rest of the reactor
 * builds with. The module's pom repeats Boot's Jetty and Servlet versions (the parent's managed versions would win
 * over the imported BOM): this fails when the two part. amqp-servlet-micrometer is built with the parent's newer
 * Micrometer; the meters tests of this module run it on Boot's, in the same JVM as this test.
 */
class BootManagedVersionsTest {
    private static String bomProperty(String name) throws IOException {
        String bom = Files.readString(Path.of(System.getProperty("spring-boot.bom")));
        Matcher m = Pattern.compile("<" + Pattern.quote(name) + ">([^<]+)</").matcher(bom);
        assertTrue(m.find(), name + " in Boot's BOM");
        return m.group(1);
    }

    private static String resolvedVersion(String groupArtifact) throws IOException {
        for (String line : DependencyListTest.resolvedLines()) {
            String[] c = line.trim().split(" ")[0].split(":");
            if ((c[0] + ":" + c[1]).equals(groupArtifact)) {
                return c[3];
            }
        }
        throw new AssertionError(groupArtifact + " is not a runtime dependency");
    }

    @Test
    void jettyIsBootsAtRunTime() throws IOException {
        String boots = bomProperty("jetty.version");
        assertEquals(boots, Jetty.VERSION, "the tests run on Boot's Jetty");
        assertEquals(boots, resolvedVersion("org.eclipse.jetty:jetty-server"));
        assertEquals(boots, resolvedVersion("org.eclipse.jetty.ee11:jetty-ee11-servlet"));
    }

    @Test
    void servletApiAndMicrometerAreBoots() throws IOException {
        assertEquals(bomProperty("jakarta-servlet.version"), resolvedVersion("jakarta.servlet:jakarta.servlet-api"));
        assertEquals(bomProperty("micrometer.version"), resolvedVersion("io.micrometer:micrometer-observation"));
        assertEquals(bomProperty("micrometer.version"), resolvedVersion("io.micrometer:micrometer-core"));
    }

    @Test
    void micrometerIsBootsAtRunTime() throws IOException {
        assertEquals(bomProperty("micrometer.version"), MeterRegistry.class.getPackage().getImplementationVersion(),
                "the tests run amqp-servlet-micrometer's meters on Boot's Micrometer");
    }
}
