package io.amqpservlet.jetty;

import org.eclipse.jetty.logging.JettyLevel;
import org.eclipse.jetty.logging.JettyLogger;
import org.eclipse.jetty.logging.StdErrAppender;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The lines Jetty's SLF4J binding writes while it is open, as an operator reads them on standard error: the named
 * loggers are set to the given level meanwhile, and the binding's one appender writes to this capture as well as to
 * where it wrote before. Closing puts the levels and the stream back. Tests run one at a time in their JVM, so the
 * shared appender is theirs while they hold a capture.
 */
public final class LogCapture implements AutoCloseable {
    private final StdErrAppender appender;
    private final PrintStream previous;
    private final Map<JettyLogger, JettyLevel> levels = new LinkedHashMap<>();
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

    private LogCapture(JettyLevel level, String... loggers) {
        for (String name : loggers) {
            JettyLogger logger = (JettyLogger) LoggerFactory.getLogger(name);
            levels.put(logger, logger.getLevel());
            logger.setLevel(level);
        }
        appender = (StdErrAppender) ((JettyLogger) LoggerFactory.getLogger(loggers[0])).getAppender();
        previous = appender.getStream();
        PrintStream before = previous != null ? previous : System.err; // null: the appender writes to System.err
        OutputStream tee = new OutputStream() {
            @Override
            public void write(int b) {
                synchronized (captured) {
                    captured.write(b);
                }
                before.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                synchronized (captured) {
                    captured.write(b, off, len);
                }
                before.write(b, off, len);
            }
        };
        appender.setStream(new PrintStream(tee, true, StandardCharsets.UTF_8));
    }

    /** Captures from now on, with the named loggers (and those below them) at {@code level}. */
    public static LogCapture of(JettyLevel level, String... loggers) {
        return new LogCapture(level, loggers);
    }

    /** {@return every whole line written so far} */
    public List<String> lines() {
        String text;
        synchronized (captured) {
            text = captured.toString(StandardCharsets.UTF_8);
        }
        List<String> lines = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (!line.isEmpty()) {
                lines.add(line);
            }
        }
        return lines;
    }

    /** {@return the lines that contain {@code text}} */
    public List<String> linesWith(String text) {
        List<String> matching = new ArrayList<>();
        for (String line : lines()) {
            if (line.contains(text)) {
                matching.add(line);
            }
        }
        return matching;
    }

    /** Waits up to 10 s for a line that {@code wanted} accepts, and returns it. */
    public String await(Predicate<String> wanted, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            for (String line : lines()) {
                if (wanted.test(line)) {
                    return line;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no log line " + what + " in:\n" + String.join("\n", lines()));
            }
            Thread.sleep(10);
        }
    }

    /** Waits up to 10 s for a line that contains {@code text}, and returns it. */
    public String await(String text) throws InterruptedException {
        return await(line -> line.contains(text), "with '" + text + "'");
    }

    @Override
    public void close() {
        appender.setStream(previous);
        for (Map.Entry<JettyLogger, JettyLevel> e : levels.entrySet()) {
            e.getKey().setLevel(e.getValue());
        }
    }
}
