package io.amqpservlet.jetty.examples;

import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/jetty.md as a user pastes it: the page's Java blocks that declare a class are compiled as they stand (the
 * server also with the ee10 import the text describes) against this module's test class path, which has what the
 * page's dependency blocks name, and run: the embedded server answers the page's client over AMQP and HTTP.
 */
@Timeout(120)
class EmbeddedExamplesTest {
    private static final Path PAGE = Path.of("..", "..", "docs", "jetty.md");
    private static final Pattern CLASS = Pattern.compile("(?m)^public final class (\\w+)");

    @TempDir
    Path dir;

    /** The fenced blocks of the page in {@code language}, in order. */
    private static List<String> blocks(String language) throws Exception {
        List<String> blocks = new ArrayList<>();
        Matcher m = Pattern.compile("(?ms)^```" + language + "\\n(.*?)^```$").matcher(Files.readString(PAGE));
        while (m.find()) {
            blocks.add(m.group(1));
        }
        return blocks;
    }

    /** The page's Java block that declares {@code className}. */
    private static String javaBlock(String className) throws Exception {
        for (String block : blocks("java")) {
            Matcher m = CLASS.matcher(block);
            if (m.find() && m.group(1).equals(className)) {
                return block;
            }
        }
        throw new AssertionError(PAGE + " has no Java block declaring " + className);
    }

    /** Compiles {@code source} (a class in the default package) into its own directory and loads it. */
    private Class<?> compile(String name, String className, String source) throws Exception {
        Path sources = Files.createDirectories(dir.resolve(name).resolve("src"));
        Path classes = Files.createDirectories(dir.resolve(name).resolve("classes"));
        Path file = Files.writeString(sources.resolve(className + ".java"), source, StandardCharsets.UTF_8);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int status = javac.run(null, null, errors, "-cp",
                System.getProperty("java.class.path"), "-d", classes.toString(), file.toString());
        assertEquals(0, status, "the block of " + className + " in " + PAGE + " does not compile: "
                + errors.toString(StandardCharsets.UTF_8));
        URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, getClass().getClassLoader());
        return loader.loadClass(className);
    }

    @Test
    void theServerAndClientOnThePageAnswerEachOther() throws Exception {
        servesTheClientAndHttp(compile("ee11", "EmbeddedAmqpServer", javaBlock("EmbeddedAmqpServer")));
    }

    @Test
    void theServerWithTheEe10ImportServesToo() throws Exception {
        String ee11 = javaBlock("EmbeddedAmqpServer");
        assertEquals(1, ee11.split("ee11", -1).length - 1, "the text says ee11 is in one import:\n" + ee11);
        String ee10 = ee11.replace("import org.eclipse.jetty.ee11.", "import org.eclipse.jetty.ee10.");
        servesTheClientAndHttp(compile("ee10", "EmbeddedAmqpServer", ee10));
    }

    private void servesTheClientAndHttp(Class<?> example) throws Exception {
        Server server = (Server) example.getMethod("start", int.class, int.class).invoke(null, 0, 0);
        try {
            ServerConnector amqp = (ServerConnector) server.getConnectors()[0];
            ServerConnector http = (ServerConnector) server.getConnectors()[1];
            assertEquals(1024, amqp.getAcceptQueueSize());
            Method get = compile("client", "HelloClient", javaBlock("HelloClient"))
                    .getMethod("get", String.class, int.class, String.class);
            assertEquals("200 hello over amqp, user null", get.invoke(null, "127.0.0.1", amqp.getLocalPort(), "/hello"));
            HttpResponse<String> overHttp = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + http.getLocalPort() + "/hello")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals("hello over HTTP/1.1, user null", overHttp.body());
        } finally {
            server.stop();
        }
    }

    @Test
    void thePageNamesTheDependenciesItsExamplesNeedAndALoggingBinding() throws Exception {
        String xml = String.join("\n", blocks("xml"));
        for (String artifact : List.of("amqp-servlet-jetty", "jetty-ee11-servlet", "amqp-servlet-client",
                "jetty-slf4j-impl")) {
            assertTrue(xml.contains("<artifactId>" + artifact + "</artifactId>"), artifact + " in " + PAGE);
        }
        // What each named dependency supplies is here, so the examples compiled against what the page names.
        for (String type : List.of("org.eclipse.jetty.ee11.servlet.ServletContextHandler",
                "io.amqpservlet.client.AmqpRequestClient", "org.eclipse.jetty.logging.JettyLoggerFactory")) {
            Class.forName(type, false, getClass().getClassLoader());
        }
        assertTrue(javaBlock("EmbeddedAmqpServer").contains("setAcceptQueueSize("));
    }
}
