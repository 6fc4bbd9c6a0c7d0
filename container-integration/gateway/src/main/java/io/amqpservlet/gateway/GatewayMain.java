package io.amqpservlet.gateway;


import java.io.PrintStream;
import java.util.Arrays;

/**
 * The jar's entry point. {@code amqp-servlet [options]} runs the gateway (the demo app when no servlets are
 * given) until SIGTERM or Ctrl-C; {@code amqp-servlet request [options] URL} makes one request over AMQP.
 *
 * <p>Shutdown (the JVM's shutdown hook) stops accepting connections, lets the requests in flight finish within
 * the stop timeout, then exits. The bound ports are printed to standard output as
 * {@code amqp-servlet listening amqp=PORT http=PORT} once the gateway serves, for scripts that ask for port 0.
 */
public final class GatewayMain {
    /** Exit status for a bad command line. */
    static final int USAGE = 2;
    /** Exit status when the gateway cannot start (port in use, servlet class missing). */
    static final int START_FAILED = 1;

    private GatewayMain() {
    }

    public static void main(String[] args) {
        if (args.length > 0 && "request".equals(args[0])) {
            // The client's standard error is for its own messages: Jetty's TLS factory would add its warnings
            // (trust-all with -k, no host name check) and INFO lines. Set before any logger exists; a user's own
            // -Dorg.eclipse.jetty.LEVEL wins.
            if (System.getProperty("org.eclipse.jetty.LEVEL") == null) {
                System.setProperty("org.eclipse.jetty.LEVEL", "OFF");
            }
            int status = RequestCommand.run(Arrays.copyOfRange(args, 1, args.length), System.out, System.err);
            System.out.flush();
            System.exit(status);
        }
        int status = serve(args, System.out, System.err);
        if (status != 0) {
            System.exit(status);
        }
    }

    /**
     * Parses the options, starts the gateway and returns 0 once it serves (the server threads keep the JVM
     * alive; a shutdown hook stops it), or an exit status when it cannot start.
     */
    static int serve(String[] args, PrintStream out, PrintStream err) {
        GatewayOptions options;
        try {
            options = GatewayOptions.parse(args);
        } catch (GatewayOptions.UsageException e) {
            return usage(e, err);
        }
        if (options.help()) {
            out.print(GatewayOptions.usage());
            return 0;
        }
        if (options.version()) {
            GatewayOptions.commandLine(new GatewayOptions()).printVersionHelp(out);
            return 0;
        }
        Gateway gateway;
        try {
            gateway = new Gateway(options);
            gateway.start();
        } catch (GatewayOptions.UsageException e) {
            return usage(e, err); // options that do not go together
        } catch (Exception e) {
            err.println("amqp-servlet: cannot start: " + FailureText.describe(e));
            return START_FAILED;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            err.println("amqp-servlet: stopping (waiting up to " + options.stopTimeoutMillis()
                    + " ms for requests in flight)");
            try {
                gateway.stop();
            } catch (Exception e) {
                err.println("amqp-servlet: stop failed: " + FailureText.describe(e));
            }
        }, "gateway-shutdown"));
        out.println("amqp-servlet listening amqp=" + gateway.amqpPort() + " http=" + gateway.httpPort()
                + (gateway.amqpsPort() < 0 ? "" : " amqps=" + gateway.amqpsPort())
                + (gateway.httpsPort() < 0 ? "" : " https=" + gateway.httpsPort())
                + (gateway.metricsPort() < 0 ? "" : " metrics=" + gateway.metricsPort()));
        out.flush();
        return 0;
    }

    private static int usage(GatewayOptions.UsageException e, PrintStream err) {
        err.println("amqp-servlet: " + e.getMessage());
        err.println("Try 'amqp-servlet --help' for more information.");
        return USAGE;
    }
}
