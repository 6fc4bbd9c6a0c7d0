package io.amqpservlet.gateway;

import io.amqpservlet.gateway.RequestCommand;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Runs the {@code request} command in-process and keeps what it wrote and its exit status. */
final class Cli {
    final int exit;
    final byte[] out;
    final String err;

    private Cli(int exit, byte[] out, String err) {
        this.exit = exit;
        this.out = out;
        this.err = err;
    }

    static Cli request(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = RequestCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Cli(exit, out.toByteArray(), err.toString(StandardCharsets.UTF_8));
    }

    String text() {
        return new String(out, StandardCharsets.UTF_8);
    }

    /** The body after the -i head (status line and headers end with an empty line). */
    String body() {
        String t = text();
        int end = t.indexOf("\r\n\r\n");
        return end < 0 ? t : t.substring(end + 4);
    }

    @Override
    public String toString() {
        return "exit " + exit + ", out: " + text() + ", err: " + err;
    }
}
