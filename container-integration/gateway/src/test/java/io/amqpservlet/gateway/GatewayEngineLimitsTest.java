package io.amqpservlet.gateway;

import io.amqpservlet.jetty.AmqpConnectionFactory;
import org.apache.qpid.protonj2.client.Client;
import org.apache.qpid.protonj2.client.Connection;
import org.apache.qpid.protonj2.client.Sender;
import org.apache.qpid.protonj2.client.Session;
import org.apache.qpid.protonj2.client.exceptions.ClientSessionRemotelyClosedException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The AMQP engine's limits per connection as gateway options ({@link EngineLimitOptions}): each reaches the factory
 * of every AMQP port and attachment, from the command line and from a {@code --config} file, one of them refuses a
 * real client, and a value the engine does not take is a usage error naming the option.
 */
@Timeout(120)
class GatewayEngineLimitsTest {
    @TempDir
    Path dir;

    /** Every engine limit, each at a value other than its default. */
    private static final Map<String, String> LIMITS = new LinkedHashMap<>();

    static {
        LIMITS.put("max-frame-size", "32k");
        LIMITS.put("max-message-size", "2m");
        LIMITS.put("channel-max", "7");
        LIMITS.put("handle-max", "63");
        LIMITS.put("max-links-per-connection", "40");
        LIMITS.put("max-link-bytes-per-connection", "16k");
        LIMITS.put("max-deliveries-in-flight", "300");
        LIMITS.put("session-incoming-window", "24");
        LIMITS.put("max-unsettled-sent-deliveries", "500");
        LIMITS.put("max-buffered-messages-per-link", "50");
        LIMITS.put("max-buffered-bytes-per-connection", "3m");
        LIMITS.put("max-pending-output-bytes", "128k");
        LIMITS.put("idle-timeout", "45000");
        LIMITS.put("min-peer-idle-timeout", "250");
        LIMITS.put("partial-frame-timeout", "20000");
        LIMITS.put("sasl-timeout", "7000");
        LIMITS.put("max-decode-depth", "16");
        LIMITS.put("max-decode-elements", "5000");
    }

    /** What each factory getter should read with {@link #LIMITS}. */
    private static Map<String, Long> expected() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("max-frame-size", 32L * 1024);
        m.put("max-message-size", 2L * 1024 * 1024);
        m.put("channel-max", 7L);
        m.put("handle-max", 63L);
        m.put("max-links-per-connection", 40L);
        m.put("max-link-bytes-per-connection", 16L * 1024);
        m.put("max-deliveries-in-flight", 300L);
        m.put("session-incoming-window", 24L);
        m.put("max-unsettled-sent-deliveries", 500L);
        m.put("max-buffered-messages-per-link", 50L);
        m.put("max-buffered-bytes-per-connection", 3L * 1024 * 1024);
        m.put("max-pending-output-bytes", 128L * 1024);
        m.put("idle-timeout", 45_000L);
        m.put("min-peer-idle-timeout", 250L);
        m.put("partial-frame-timeout", 20_000L);
        m.put("sasl-timeout", 7_000L);
        m.put("max-decode-depth", 16L);
        m.put("max-decode-elements", 5_000L);
        return m;
    }

    /** The factory's JMX getters, by option name. */
    private static Map<String, Long> read(AmqpConnectionFactory f) {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("max-frame-size", (long) f.getMaxFrameSize());
        m.put("max-message-size", f.getMaxMessageSize());
        m.put("channel-max", (long) f.getChannelMax());
        m.put("handle-max", (long) f.getHandleMax());
        m.put("max-links-per-connection", (long) f.getMaxLinksPerConnection());
        m.put("max-link-bytes-per-connection", (long) f.getMaxLinkBytesPerConnection());
        m.put("max-deliveries-in-flight", (long) f.getMaxDeliveriesInFlight());
        m.put("session-incoming-window", (long) f.getSessionIncomingWindow());
        m.put("max-unsettled-sent-deliveries", (long) f.getMaxUnsettledSentDeliveries());
        m.put("max-buffered-messages-per-link", (long) f.getMaxBufferedMessagesPerLink());
        m.put("max-buffered-bytes-per-connection", f.getMaxBufferedBytesPerConnection());
        m.put("max-pending-output-bytes", (long) f.getMaxPendingOutputBytes());
        m.put("idle-timeout", f.getIdleTimeout());
        m.put("min-peer-idle-timeout", f.getMinPeerIdleTimeout());
        m.put("partial-frame-timeout", f.getPartialFrameTimeout());
        m.put("sasl-timeout", f.getSaslTimeout());
        m.put("max-decode-depth", (long) f.getMaxDecodeDepth());
        m.put("max-decode-elements", (long) f.getMaxDecodeElements());
        return m;
    }

    private static List<String> asArgs(Map<String, String> options) {
        List<String> args = new ArrayList<>();
        options.forEach((name, value) -> {
            args.add("--" + name);
            args.add(value);
        });
        return args;
    }

    private static Gateway start(List<String> args) throws Exception {
        return GatewayConfigurationsTest.start(args.toArray(String[]::new));
    }

    private static AmqpConnectionFactory amqpFactory(Gateway g) {
        return g.server().getConnectors()[0].getConnectionFactory(AmqpConnectionFactory.class);
    }

    @Test
    void everyEngineLimitReachesTheAmqpPortAndTheAttachment() throws Exception {
        List<String> args = new ArrayList<>(List.of("--amqp-port", "0", "--http-port", "-1",
                // The attachment's broker is not there: it keeps reconnecting, which does not matter here.
                "--attach", "amqp://127.0.0.1:1/orders"));
        args.addAll(asArgs(LIMITS));
        Gateway g = start(args);
        try {
            assertEquals(expected(), read(amqpFactory(g)));
            assertEquals(expected(), read(g.attachments().get(0).getConnectionFactory()));
            Cli served = Cli.request("amqp://127.0.0.1:" + g.amqpPort() + "/echo");
            assertEquals(0, served.exit, served.toString());
        } finally {
            g.stop();
        }
    }

    @Test
    void aConfigFileSetsThemAndLaterOptionsOverrideIt() throws Exception {
        StringBuilder text = new StringBuilder();
        LIMITS.forEach((name, value) -> text.append(name).append('=').append(value).append('\n'));
        Path config = dir.resolve("limits.properties");
        Files.writeString(config, text);
        Gateway g = start(List.of("--amqp-port", "0", "--http-port", "-1", "--config", config.toString(),
                "--channel-max", "9"));
        try {
            Map<String, Long> want = expected();
            want.put("channel-max", 9L);
            assertEquals(want, read(amqpFactory(g)));
        } finally {
            g.stop();
        }
    }

    @Test
    void theDefaultsAreTheEngineDefaultsWithTheStreamingWindow() throws Exception {
        Gateway g = start(List.of("--amqp-port", "0", "--http-port", "-1"));
        try {
            AmqpConnectionFactory f = amqpFactory(g);
            assertEquals(65_536, f.getMaxFrameSize());
            assertEquals(1024, f.getMaxLinksPerConnection());
            assertEquals(AmqpConnectionFactory.STREAMING_SESSION_WINDOW_FRAMES, f.getSessionIncomingWindow());
            assertEquals(60_000, f.getIdleTimeout());
            assertEquals(30_000, f.getPartialFrameTimeout());
            assertEquals(10_000, f.getSaslTimeout());
            assertEquals(64, f.getMaxDecodeDepth());
            assertEquals(1 << 20, f.getMaxDecodeElements());
        } finally {
            g.stop();
        }
    }

    @Test
    void maxLinksPerConnectionFromTheCommandLineEndsTheSessionOfAClientsThirdLink() throws Exception {
        Gateway g = start(List.of("--amqp-port", "0", "--http-port", "-1", "--max-links-per-connection", "2"));
        try (Client client = Client.create();
             Connection connection = client.connect("127.0.0.1", g.amqpPort())) {
            Session session = connection.openSession();
            Sender first = session.openSender("/echo");
            Sender second = session.openSender("/echo");
            first.openFuture().get(10, TimeUnit.SECONDS);
            second.openFuture().get(10, TimeUnit.SECONDS);
            Sender third = session.openSender("/echo");
            ExecutionException refused = assertThrows(ExecutionException.class,
                    () -> third.openFuture().get(10, TimeUnit.SECONDS));
            ClientSessionRemotelyClosedException ended = assertInstanceOf(
                    ClientSessionRemotelyClosedException.class, refused.getCause());
            assertEquals("amqp:resource-limit-exceeded", ended.getErrorCondition().condition(),
                    String.valueOf(ended.getErrorCondition()));
            // The limit is the connection's: a new one is served.
            assertEquals(0, Cli.request("amqp://127.0.0.1:" + g.amqpPort() + "/echo").exit);
        } finally {
            g.stop();
        }
    }

    /** A bad value on the command line or in a config file: exit 2, one line naming the option, no stack trace. */
    @Test
    void aValueTheEngineDoesNotTakeIsAUsageErrorNamingTheOption() throws Exception {
        Map<String, String> bad = new LinkedHashMap<>();
        bad.put("--max-frame-size=511", "--max-frame-size must be from 512 to 2147483647, got 511");
        bad.put("--max-frame-size=2g", "--max-frame-size must be from 512 to 2147483647, got 2g");
        bad.put("--max-message-size=0", "--max-message-size must be from 1 to");
        bad.put("--max-message-size=lots", "--max-message-size wants a size such as 65536, 64k or 64m, got lots");
        bad.put("--channel-max=65536", "--channel-max must be from 0 to 65535, got 65536");
        bad.put("--channel-max=-1", "--channel-max must be from 0 to 65535, got -1");
        bad.put("--handle-max=-1", "--handle-max must be from 0 to 2147483647, got -1");
        bad.put("--handle-max=2147483648", "--handle-max must be from 0 to 2147483647, got 2147483648");
        bad.put("--max-links-per-connection=0", "--max-links-per-connection must be from 1 to 2147483647, got 0");
        bad.put("--max-links-per-connection=many", "--max-links-per-connection wants a number of links, got many");
        bad.put("--max-link-bytes-per-connection=0", "--max-link-bytes-per-connection must be from 1 to");
        bad.put("--max-deliveries-in-flight=0", "--max-deliveries-in-flight must be from 1 to");
        bad.put("--session-incoming-window=0", "--session-incoming-window must be from 1 to");
        bad.put("--max-unsettled-sent-deliveries=0", "--max-unsettled-sent-deliveries must be from 1 to");
        bad.put("--max-buffered-messages-per-link=-1", "--max-buffered-messages-per-link must be from 0 to");
        bad.put("--max-buffered-bytes-per-connection=-1k", "--max-buffered-bytes-per-connection must be from 0 to");
        bad.put("--max-pending-output-bytes=0", "--max-pending-output-bytes must be from 1 to");
        bad.put("--max-pending-output-bytes=4g", "--max-pending-output-bytes must be from 1 to 2147483647, got 4g");
        bad.put("--idle-timeout=-1", "--idle-timeout must be from 0 to 4294967295, got -1");
        bad.put("--idle-timeout=9999999999", "--idle-timeout must be from 0 to 4294967295, got 9999999999");
        bad.put("--min-peer-idle-timeout=0", "--min-peer-idle-timeout must be from 1 to 4294967295, got 0");
        bad.put("--partial-frame-timeout=-5", "--partial-frame-timeout must be from 0 to 4294967295, got -5");
        bad.put("--sasl-timeout=0", "--sasl-timeout must be from 1 to 4294967295, got 0");
        bad.put("--max-decode-depth=0", "--max-decode-depth must be from 1 to 1024, got 0");
        bad.put("--max-decode-depth=100000", "--max-decode-depth must be from 1 to 1024, got 100000");
        bad.put("--max-decode-depth=deep", "--max-decode-depth wants a number of levels, got deep");
        bad.put("--max-decode-elements=-1", "--max-decode-elements must be from 0 to 2147483647, got -1");
        for (Map.Entry<String, String> e : bad.entrySet()) {
            String err = serveFails(e.getKey());
            assertTrue(err.startsWith("amqp-servlet: " + e.getValue()), e.getKey() + ": " + err);
            assertFalse(err.contains("Exception") || err.contains("\tat "), err);
            String option = e.getKey().substring(2);
            Path config = dir.resolve("bad.properties");
            Files.writeString(config, option + "\n"); // name=value is a properties line as it stands
            String fromFile = serveFails("--config=" + config);
            assertTrue(fromFile.startsWith("amqp-servlet: config " + config + ": " + e.getValue()),
                    e.getKey() + ": " + fromFile);
        }
        // Zero where it means "none" is taken.
        GatewayOptions zeros = GatewayOptions.parse(new String[] {"--idle-timeout", "0", "--partial-frame-timeout",
            "0", "--max-buffered-messages-per-link", "0", "--max-buffered-bytes-per-connection", "0",
            "--channel-max", "0", "--handle-max", "0"});
        assertEquals(0, zeros.engineLimits().idleTimeoutMillis);
        assertEquals(0, zeros.engineLimits().partialFrameTimeoutMillis);
    }

    /**
     * Runs the gateway's main with {@code option}; no port is on, so that a value taken by mistake fails the start
     * (every port off) rather than serving.
     */
    private static String serveFails(String option) {
        String[] args = {"--amqp-port=-1", "--http-port=-1", option};
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = GatewayMain.serve(args, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        String text = err.toString(StandardCharsets.UTF_8);
        assertEquals(2, status, String.join(" ", args) + ": " + text);
        return text;
    }

    /** {@code --help} states each limit's default: the value the gateway applies when the option is not given. */
    @Test
    void theHelpStatesEachDefault() throws Exception {
        String usage = GatewayOptions.usage().replaceAll("\\s+", " ");
        EngineLimits defaults = new EngineLimits();
        for (String name : LIMITS.keySet()) {
            Matcher m = Pattern.compile("--" + name + "=[A-Z]+ [^(\\[]*\\(default (\\w+)").matcher(usage);
            assertTrue(m.find(), name + " in " + usage);
            EngineLimits stated = new EngineLimits();
            stated.set(name, m.group(1));
            for (Field f : EngineLimits.class.getDeclaredFields()) {
                if (!java.lang.reflect.Modifier.isStatic(f.getModifiers())) {
                    assertEquals(f.get(defaults), f.get(stated), name + " states default " + m.group(1));
                }
            }
        }
    }
}
