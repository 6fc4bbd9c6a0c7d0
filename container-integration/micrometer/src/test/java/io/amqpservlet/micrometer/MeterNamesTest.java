package io.amqpservlet.micrometer;

import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.jetty.AmqpBrokerAttachment;
import io.amqpservlet.jetty.AmqpConnectionFactory;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The names a Prometheus user reads are the ones docs/jetty.md's table ("Micrometer meters") lists: a listener's and
 * an attachment's meters, scraped through Micrometer's Prometheus registry as the gateway serves them, give exactly
 * the table's names with exactly its labels and label values. A label whose values the table leaves open (its list
 * ends {@code ...}) is one a meter is made for as each value first comes: the scrape, after one such error, shows
 * that meter with values the table names or leaves open.
 */
class MeterNamesTest {
    private static final Path PAGE = Path.of("..", "..", "docs", "jetty.md");
    /** One sample line of the text format: name, labels in braces, value. */
    private static final Pattern SAMPLE = Pattern.compile("^(amqp_servlet_[a-z_]+)\\{(.*)}\\s+\\S+$");
    private static final Pattern LABEL = Pattern.compile("([a-z_]+)=\"([^\"]*)\"");
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");
    /** A label value of a label whose values the table leaves open. */
    private static final String OPEN = "*";

    /** Each name the scrape shows, with the labels (other than {@code connector_name}) its samples have. */
    private static Map<String, Set<String>> scraped() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        AmqpConnectionFactory factory = new AmqpConnectionFactory(new HttpConfiguration(),
                new EngineConfig().anonymousAllowed(true)); // SASL required
        new AmqpConnectionFactoryMetrics(factory, "amqp").bindTo(registry);
        // One error sent to a client, and one an attachment sends its broker (here the listener, whose idle-time-out
        // is shorter than the attachment lets a peer ask for), so that the meters made as errors come are in the
        // scrape too.
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server, 1, 1, factory);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        server.start();
        Server attached = new Server();
        AmqpBrokerAttachment attachment = new AmqpBrokerAttachment(attached, new AmqpConnectionFactory(
                new HttpConfiguration(), new EngineConfig().minPeerIdleTimeoutMillis(60_000)));
        attachment.setName("attach:orders");
        attachment.setUri("amqp://127.0.0.1:" + connector.getLocalPort() + "/orders");
        attached.addConnector(attachment);
        new AmqpBrokerAttachmentMetrics(attachment).bindTo(registry);
        String scrape;
        try {
            attached.start();
            AmqpConnectionFactoryMetricsTest.connectWithoutSasl(connector.getLocalPort());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (factory.getConnectionErrorsSent().isEmpty() || attachment.getConnectionErrorsSent().isEmpty()) {
                assertTrue(System.nanoTime() < deadline, "no error counted: " + factory.getConnectionErrorsSent()
                        + ", " + attachment.getState() + " " + attachment.getLastFailure());
                Thread.sleep(10);
            }
            scrape = registry.scrape();
        } finally {
            attached.stop();
            server.stop();
        }
        Map<String, Set<String>> names = new TreeMap<>();
        for (String line : scrape.split("\n")) {
            Matcher m = SAMPLE.matcher(line);
            if (!m.matches()) {
                continue;
            }
            Set<String> labels = names.computeIfAbsent(m.group(1), n -> new TreeSet<>());
            Matcher l = LABEL.matcher(m.group(2));
            boolean named = false;
            while (l.find()) {
                if (l.group(1).equals("connector_name")) {
                    named = true;
                } else {
                    labels.add(l.group(1) + "=" + l.group(2));
                }
            }
            assertTrue(named, "every sample names its connector: " + line);
        }
        return names;
    }

    /** Each name the page's table lists, with the labels of its row: {@code `key`: `value`, `value`, ...}. */
    private static Map<String, Set<String>> documented() throws Exception {
        String page = Files.readString(PAGE);
        int start = page.indexOf("\n## Micrometer meters\n");
        assertTrue(start >= 0, PAGE + " has no section \"Micrometer meters\"");
        int end = page.indexOf("\n## ", start + 1);
        Map<String, Set<String>> names = new TreeMap<>();
        for (String row : page.substring(start, end).split("\n")) {
            if (!row.startsWith("| `amqp_servlet_")) {
                continue;
            }
            String[] cells = row.split("\\|");
            Set<String> labels = new TreeSet<>();
            for (String label : cells[2].split(";")) {
                String[] keyAndValues = label.split(":", 2);
                if (keyAndValues.length < 2) {
                    continue;
                }
                Matcher key = CODE.matcher(keyAndValues[0]);
                assertTrue(key.find(), row);
                if (keyAndValues[1].contains("...")) {
                    labels.add(key.group(1) + "=" + OPEN); // values come as they come
                    continue;
                }
                Matcher value = CODE.matcher(keyAndValues[1]);
                while (value.find()) {
                    labels.add(key.group(1) + "=" + value.group(1));
                }
            }
            Matcher name = CODE.matcher(cells[1]);
            while (name.find()) {
                names.put(name.group(1), labels);
            }
        }
        return names;
    }

    @Test
    void theScrapeHasExactlyTheDocumentedNamesAndLabels() throws Exception {
        Map<String, Set<String>> scraped = scraped();
        Map<String, Set<String>> documented = documented();
        assertTrue(scraped.size() > 10, "the scrape shows the meters: " + scraped);
        for (Map.Entry<String, Set<String>> row : Map.copyOf(documented).entrySet()) {
            if (row.getValue().stream().noneMatch(label -> label.endsWith("=" + OPEN))) {
                continue;
            }
            // Made as they come: the scrape has the one error's meter, each label named or left open by the table.
            Set<String> seen = scraped.remove(row.getKey());
            documented.remove(row.getKey());
            assertTrue(seen != null && !seen.isEmpty(), row.getKey() + " is not in the scrape");
            for (String label : seen) {
                String open = label.substring(0, label.indexOf('=') + 1) + OPEN;
                assertTrue(row.getValue().contains(label) || row.getValue().contains(open),
                        row.getKey() + " has " + label + ", which the table does not name: " + row.getValue());
            }
        }
        assertEquals(documented, scraped);
    }
}
