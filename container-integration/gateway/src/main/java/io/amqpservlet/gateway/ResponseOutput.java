package io.amqpservlet.gateway;

import io.amqpservlet.client.AmqpResponse;
import io.amqpservlet.client.ResponseListener;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where the response goes as it arrives: standard output or the {@code -o} file (created when the head is in,
 * so a failed request leaves no file behind). A write failure becomes {@link WriteFailure} (curl's 23).
 */
final class ResponseOutput implements ResponseListener {
    /** The output could not be written. */
    static final class WriteFailure extends IOException {
        private static final long serialVersionUID = 1L;

        WriteFailure(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private final PrintStream stdout;
    private final String file;
    private final boolean include;
    private final PrintStream trace;
    private OutputStream sink;
    private long bodyBytes;
    private int status;

    ResponseOutput(PrintStream stdout, String file, boolean include, PrintStream trace) {
        this.stdout = stdout;
        this.file = file;
        this.include = include;
        this.trace = trace;
    }

    @Override
    public void onHead(AmqpResponse head) throws IOException {
        status = head.status();
        try {
            sink = file == null ? stdout : new BufferedOutputStream(Files.newOutputStream(Path.of(file)), 65536);
            if (include) {
                sink.write(RequestCommand.statusAndHeaders(head).getBytes(StandardCharsets.ISO_8859_1));
            }
        } catch (IOException e) {
            throw new WriteFailure("cannot write " + (file == null ? "the output" : file) + ": "
                    + IoMessage.of(e), e);
        }
    }

    @Override
    public void onBody(byte[] bytes, int offset, int length) throws IOException {
        try {
            sink.write(bytes, offset, length);
            bodyBytes += length;
        } catch (IOException e) {
            throw new WriteFailure("cannot write " + (file == null ? "the output" : file) + ": "
                    + IoMessage.of(e), e);
        }
        if (stdout.checkError()) {
            throw new WriteFailure("cannot write the output", null);
        }
    }

    void finish() throws IOException {
        if (sink != null) {
            sink.flush();
        }
        if (trace != null) {
            trace.println("< " + status + " (" + bodyBytes + " bytes)");
        }
    }

    void close() {
        if (sink != null && sink != stdout) {
            try {
                sink.close();
            } catch (IOException ignored) {
                // finish() reported the failure that matters
            }
        }
        stdout.flush();
    }
}
