package io.amqpservlet.jetty;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;

/**
 * A fresh {@code $JETTY_BASE} over the real jetty-home distribution that the build unpacked into
 * {@code target/jetty-home}, with our module archive ({@code target/amqp-servlet-jetty-module-*.zip}) unpacked
 * into it, as docs/jetty-module.md tells users to do. It runs {@code start.jar} as separate processes: once per
 * {@link #startJar} call (module installation), and as the server ({@link #start}), whose connector ports it reads
 * from Jetty's "Started ServerConnector" log lines (every port is 0, so the kernel picks free ones).
 */
final class JettyBase implements AutoCloseable {
    /** Jetty's connector start line: {@code Started oejs.ServerConnector@1a2b{amqp, (amqp)}{0.0.0.0:36343}}. */
    private static final Pattern STARTED_CONNECTOR =
            Pattern.compile("Started oejs\\.ServerConnector@\\w+\\{([^}]*)\\}\\{[^}]*:(\\d+)\\}");

    final Path home;
    final Path base;
    private Process server;
    private Path serverLog;

    private JettyBase(Path home, Path base) {
        this.home = home;
        this.base = base;
    }

    /**
     * @return a base in {@code dir} with our module archive unpacked, or null when the build has not produced the
     *         distribution or the archive (the test then reports itself skipped, not passed)
     */
    static JettyBase create(Path dir) throws IOException {
        Path home = only(Path.of("target", "jetty-home"), "jetty-home-*");
        Path archive = only(Path.of("target"), "amqp-servlet-jetty-module-*.zip");
        if (home == null || archive == null) {
            return null;
        }
        Path base = Files.createDirectories(dir.resolve("jetty-base"));
        unzip(archive, base);
        return new JettyBase(home.toAbsolutePath(), base.toAbsolutePath());
    }

    private static Path only(Path dir, String glob) throws IOException {
        if (!Files.isDirectory(dir)) {
            return null;
        }
        try (DirectoryStream<Path> found = Files.newDirectoryStream(dir, glob)) {
            for (Path p : found) {
                return p;
            }
        }
        return null;
    }

    private static void unzip(Path archive, Path into) throws IOException {
        try (ZipInputStream zip = new ZipInputStream(Files.newInputStream(archive))) {
            for (ZipEntry e; (e = zip.getNextEntry()) != null; ) {
                Path target = into.resolve(e.getName()).normalize();
                if (!target.startsWith(into)) {
                    throw new IOException("archive entry outside the base: " + e.getName());
                }
                if (e.isDirectory()) {
                    Files.createDirectories(target);
                } else {
                    Files.createDirectories(target.getParent());
                    Files.copy(zip, target);
                }
            }
        }
    }

    private List<String> command(String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-jar");
        cmd.add(home.resolve("start.jar").toString());
        cmd.add("jetty.home=" + home);
        cmd.add("jetty.base=" + base);
        cmd.addAll(List.of(args));
        return cmd;
    }

    /** Runs {@code start.jar} with {@code args} to completion (such as {@code --add-module=amqp}); its output. */
    String startJar(String... args) throws IOException, InterruptedException {
        Path log = Files.createTempFile(base.getParent(), "start", ".log");
        Process p = new ProcessBuilder(command(args)).directory(base.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("start.jar " + List.of(args) + " did not finish: " + Files.readString(log));
            }
            String out = Files.readString(log);
            if (p.exitValue() != 0) {
                throw new IllegalStateException("start.jar " + List.of(args) + " exited " + p.exitValue() + ": " + out);
            }
            return out;
        } finally {
            p.destroyForcibly();
        }
    }

    /**
     * Writes {@code webapps/<name>.war}: each servlet's class file (from the test class path) under
     * WEB-INF/classes, and a web.xml mapping it to its URL pattern.
     */
    void deployWar(String name, Map<Class<?>, String> servletsByMapping) throws IOException {
        Path war = Files.createDirectories(base.resolve("webapps")).resolve(name + ".war");
        StringBuilder webXml = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                + "<web-app xmlns=\"https://jakarta.ee/xml/ns/jakartaee\" version=\"6.1\">\n");
        try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(war))) {
            int n = 0;
            for (Map.Entry<Class<?>, String> e : servletsByMapping.entrySet()) {
                Class<?> servlet = e.getKey();
                String resource = servlet.getName().replace('.', '/') + ".class";
                zip.putNextEntry(new ZipEntry("WEB-INF/classes/" + resource));
                try (InputStream in = servlet.getClassLoader().getResourceAsStream(resource)) {
                    in.transferTo(zip);
                }
                zip.closeEntry();
                String id = "s" + n++;
                webXml.append("  <servlet><servlet-name>").append(id).append("</servlet-name><servlet-class>")
                        .append(servlet.getName()).append("</servlet-class></servlet>\n")
                        .append("  <servlet-mapping><servlet-name>").append(id).append("</servlet-name><url-pattern>")
                        .append(e.getValue()).append("</url-pattern></servlet-mapping>\n");
            }
            webXml.append("</web-app>\n");
            zip.putNextEntry(new ZipEntry("WEB-INF/web.xml"));
            zip.write(webXml.toString().getBytes(StandardCharsets.UTF_8));
            zip.closeEntry();
        }
    }

    /** Writes {@code webapps/<name>.war} with the classes' files under WEB-INF/classes and no web.xml. */
    void deployAnnotatedWar(String name, Class<?>... classes) throws IOException {
        Path war = Files.createDirectories(base.resolve("webapps")).resolve(name + ".war");
        try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(war))) {
            for (Class<?> c : classes) {
                String resource = c.getName().replace('.', '/') + ".class";
                zip.putNextEntry(new ZipEntry("WEB-INF/classes/" + resource));
                try (InputStream in = c.getClassLoader().getResourceAsStream(resource)) {
                    in.transferTo(zip);
                }
                zip.closeEntry();
            }
        }
    }

    /** Writes a file of the base (a realm file, a context XML), creating its directory. */
    Path write(String relative, byte[] bytes) throws IOException {
        Path file = base.resolve(relative);
        Files.createDirectories(file.getParent());
        try (OutputStream out = Files.newOutputStream(file)) {
            out.write(bytes);
        }
        return file;
    }

    /**
     * Starts the server ({@code start.jar} with {@code properties}) and waits until it has started.
     *
     * @return each connector's port, keyed by its protocols as Jetty logs them (such as {@code "amqp, (amqp)"})
     */
    Map<String, Integer> start(String... properties) throws IOException, InterruptedException {
        serverLog = base.getParent().resolve("server.log");
        server = new ProcessBuilder(command(properties)).directory(base.toFile()).redirectErrorStream(true)
                .redirectOutput(serverLog.toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            String log = Files.readString(serverLog);
            if (log.contains("Started oejs.Server@")) {
                Map<String, Integer> ports = new LinkedHashMap<>();
                Matcher m = STARTED_CONNECTOR.matcher(log);
                while (m.find()) {
                    ports.put(m.group(1), Integer.parseInt(m.group(2)));
                }
                return ports;
            }
            if (!server.isAlive()) {
                throw new IllegalStateException("the server exited " + server.exitValue() + ": " + log);
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("the server did not start in 60 s: " + Files.readString(serverLog));
    }

    /** The server's output so far. */
    String serverLog() throws IOException {
        return serverLog == null ? "" : Files.readString(serverLog);
    }

    /** The port of the one connector whose protocols include {@code protocol}. */
    static int port(Map<String, Integer> ports, String protocol) {
        for (Map.Entry<String, Integer> e : ports.entrySet()) {
            if (e.getKey().contains(protocol)) {
                return e.getValue();
            }
        }
        throw new IllegalStateException("no " + protocol + " connector in " + ports);
    }

    /** Stops the server (SIGTERM: Jetty's shutdown hook stops it gracefully), forcibly if it takes over 30 s. */
    @Override
    public void close() throws InterruptedException {
        if (server != null) {
            server.destroy();
            if (!server.waitFor(30, TimeUnit.SECONDS)) {
                server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
