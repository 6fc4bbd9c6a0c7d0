package io.amqpservlet.bench.gateway;

import io.amqpservlet.bench.broker.ArtemisBroker;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An embedded Artemis broker in its own JVM: {@link ArtemisBroker} from this jar's class path. The brokered rows
 * start it with {@code --no-responder} and run the responder in a process of its own ({@link ResponderProcess}).
 */
public final class BrokerProcess implements AutoCloseable {
    /** The Artemis version the broker runs. */
    public static final String VERSION = "2.55.0";
    private static final Pattern LISTENING = Pattern.compile("artemis listening amqp=(\\d+)");

    private final Process process;
    /** The broker's AMQP port. */
    public final int port;

    /** A broker started with {@link ArtemisBroker}'s arguments (e.g. {@code --queue echo --no-responder}). */
    public BrokerProcess(Path workDir, List<String> brokerArgs) throws IOException {
        Files.createDirectories(workDir);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new java.util.ArrayList<>(List.of(java, "-Xms512m", "-Xmx512m", "-cp",
                System.getProperty("java.class.path"), ArtemisBroker.class.getName()));
        cmd.addAll(brokerArgs);
        process = new ProcessBuilder(cmd)
                .redirectError(workDir.resolve("artemis.log").toFile()).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null) {
            Matcher m = LISTENING.matcher(line);
            if (m.find()) {
                port = Integer.parseInt(m.group(1));
                return;
            }
        }
        process.destroyForcibly();
        throw new IOException("the broker did not start; see " + workDir.resolve("artemis.log"));
    }

    /** The broker's process id. */
    public long pid() {
        return process.pid();
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
