package io.amqpservlet.bench.load;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code load-tests/bench load}: drives an AMQP 1.0 request/response endpoint with our initiator engine and prints
 * throughput, latency percentiles and errors; optionally writes the result as JSON and the latency distribution as
 * an HdrHistogram {@code .hgrm} file. Exit status 0 when the run completed without errors, 1 with errors, 2 for a
 * bad command line, 3 when the connections could not be set up.
 */
public final class LoadMain {
    private LoadMain() {
    }

    /** Runs one load as the command line says ({@code bench load --help} lists the options). */
    public static void main(String[] args) throws InterruptedException {
        LoadOptions options;
        try {
            options = LoadOptions.parse(args);
        } catch (LoadOptions.UsageException e) {
            if ("help".equals(e.getMessage())) {
                System.out.print(LoadOptions.usage());
                System.exit(0);
            } else if ("version".equals(e.getMessage())) {
                LoadOptions.commandLine(new LoadOptions()).printVersionHelp(System.out);
                System.exit(0);
            }
            System.err.println("bench load: " + e.getMessage());
            System.err.println("Try 'load-tests/bench load --help' for more information.");
            System.exit(2);
            return;
        }
        LoadResult result;
        try {
            result = new LoadRun(options, System.err).run();
        } catch (IOException e) {
            System.err.println("bench load: " + e.getMessage());
            System.exit(3);
            return;
        }
        result.print(System.out);
        try {
            if (options.jsonOut != null) {
                Path p = Path.of(options.jsonOut);
                if (p.toAbsolutePath().getParent() != null) {
                    Files.createDirectories(p.toAbsolutePath().getParent());
                }
                Files.writeString(p, result.toJson() + "\n", StandardCharsets.UTF_8);
            }
            if (options.hgrmOut != null) {
                result.writeHgrm(Path.of(options.hgrmOut));
            }
        } catch (IOException e) {
            System.err.println("bench load: cannot write results: " + e.getMessage());
            System.exit(3);
        }
        System.exit(result.errorCount() == 0 ? 0 : 1);
    }
}
