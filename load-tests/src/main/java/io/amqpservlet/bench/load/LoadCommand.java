package io.amqpservlet.bench.load;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.util.List;

/**
 * The {@code bench load} command line (picocli): each option's setter writes into a {@link LoadOptions} in the
 * order the options are given, checking its value; errors name the option.
 */
@Command(name = "bench load", mixinStandardHelpOptions = true, versionProvider = BenchVersion.class,
        sortOptions = false, usageHelpWidth = 110,
        description = "Drives AMQP 1.0 request/response endpoints with the project's initiator engine and prints "
                + "throughput, latency percentiles and errors.",
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:completed without errors", "1:completed with errors", "2:bad command line",
            "3:the connections could not be set up, or the results not written"})
final class LoadCommand {
    private final LoadOptions o;
    @Spec
    private CommandSpec spec;

    LoadCommand(LoadOptions options) {
        this.o = options;
    }

    @Parameters(paramLabel = "URL", arity = "1..*",
            description = "amqp://host[:port]/path endpoints (http://: HTTP/1.1, h2c://: HTTP/2 without TLS); a scenario "
                    + "wanting more reuses the last one")
    void endpoints(List<String> urls) {
        // Checked after parsing (LoadOptions.parse), so an unknown option is reported as such, not as a bad URL.
        o.endpointUrls.clear();
        o.endpointUrls.addAll(urls);
    }

    @Option(order = 1, names = "--scenario", paramLabel = "NAME", description = "funnel (2 clients -> 1 endpoint), attach1..3 (through a broker), quad "
            + "(2 clients x 2 endpoints), many (1,000 connections, window 2); later options override it")
    void scenario(String name) {
        try {
            Scenario.byName(name).applyTo(o);
        } catch (LoadOptions.UsageException e) {
            throw new ParameterException(spec.commandLine(), "--scenario: " + e.getMessage());
        }
    }

    @Option(order = 2, names = "--clients", paramLabel = "N",
            description = "client event loops (threads), each with its own connections (default 1)")
    void clients(String n) {
        o.clients = positive("--clients", n);
    }

    @Option(order = 3, names = "--connections", paramLabel = "N", description = "connections per client per endpoint (default 1)")
    void connections(String n) {
        o.connectionsPerEndpoint = positive("--connections", n);
    }

    @Option(order = 4, names = "--window", paramLabel = "N", description = "requests in flight per connection (default 16)")
    void window(String n) {
        o.window = positive("--window", n);
    }

    @Option(order = 5, names = "--body", paramLabel = "BYTES", description = "request body size (default 100)")
    void body(String bytes) {
        o.bodyBytes = (int) number("--body", bytes, 0, 16 * 1024 * 1024);
    }

    @Option(order = 6, names = {"-X", "--method"}, paramLabel = "M", description = "request method (default POST)")
    void method(String m) {
        o.method = m;
    }

    @Option(order = 7, names = {"-H", "--header"}, paramLabel = "'N: v'",
            description = "a header, sent as an application-property (repeatable)")
    void header(String header) {
        int colon = header.indexOf(':');
        if (colon <= 0) {
            throw new ParameterException(spec.commandLine(), "--header wants 'Name: value', got " + header);
        }
        o.headers.put(header.substring(0, colon).trim(), header.substring(colon + 1).trim());
    }

    @Option(order = 8, names = "--content-type", paramLabel = "T", description = "(default application/octet-stream)")
    void contentType(String type) {
        o.contentType = type;
    }

    @Option(order = 9, names = "--warmup", paramLabel = "D", description = "discarded warm-up (default 2s)")
    void warmup(String d) {
        o.warmupMillis = millis("--warmup", d);
    }

    @Option(order = 10, names = "--duration", paramLabel = "D", description = "measured phase (default 10s)")
    void duration(String d) {
        o.durationMillis = Math.max(1, millis("--duration", d));
    }

    @Option(order = 11, names = "--rate", paramLabel = "R", description = "open loop: R requests/s over all connections, latency "
            + "from each request's scheduled send time; 0 or absent: closed loop")
    void rate(String r) {
        o.ratePerSecond = number("--rate", r, 0, 1e9);
    }

    @Option(order = 12, names = "--timeout", paramLabel = "D",
            description = "a request without a response after D is a timeout (default 10s)")
    void timeout(String d) {
        o.timeoutMillis = Math.max(1, millis("--timeout", d));
    }

    @Option(order = 13, names = "--user", paramLabel = "NAME:PASS", description = "SASL PLAIN (default ANONYMOUS)")
    void user(String user) {
        int colon = user.indexOf(':');
        if (colon <= 0) {
            throw new ParameterException(spec.commandLine(), "--user wants name:password");
        }
        o.user = user.substring(0, colon);
        o.password = user.substring(colon + 1);
    }

    @Option(order = 14, names = "--reply-queue", paramLabel = "PREFIX", description = "named reply queues, PREFIX and "
            + "a unique suffix per connection, for a broker without dynamic queues (RabbitMQ: /queue/bench-replies-)")
    void replyQueue(String prefix) {
        o.replyNodePrefix = prefix;
    }

    @Option(order = 15, names = "--json", paramLabel = "FILE", description = "write the result as JSON")
    void json(String file) {
        o.jsonOut = file;
    }

    @Option(order = 16, names = "--hgrm", paramLabel = "FILE",
            description = "write the latency percentile distribution (HdrHistogram .hgrm, ms)")
    void hgrm(String file) {
        o.hgrmOut = file;
    }

    @Option(order = 17, names = "--no-progress", description = "no live progress line")
    void noProgress(boolean off) {
        o.progress = !off;
    }

    private int positive(String option, String value) {
        try {
            return LoadOptions.positive(option.substring(2), value);
        } catch (LoadOptions.UsageException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    private double number(String option, String value, double min, double max) {
        try {
            return LoadOptions.number(option.substring(2), value, min, max);
        } catch (LoadOptions.UsageException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    private long millis(String option, String value) {
        try {
            return LoadOptions.millis(option.substring(2), value);
        } catch (LoadOptions.UsageException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }
}
