package io.amqpservlet.protocol.types;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** Test support: encode a described list to bytes and decode bytes into a described list. */
public final class RoundTrip {
    private RoundTrip() {
    }

    /** The encoding of {@code value}. */
    public static byte[] encode(DescribedList value) {
        AmqpWriter writer = new AmqpWriter();
        value.encode(writer);
        return writer.toByteArray();
    }

    /** Decodes {@code bytes}, which must hold exactly one value, into {@code into}. */
    public static <T extends DescribedList> T decode(byte[] bytes, T into) {
        AmqpReader reader = new AmqpReader().wrap(bytes, 0, bytes.length);
        reader.next();
        into.decode(reader);
        assertFalse(reader.hasNext(), "decode consumed the whole value");
        return into;
    }

    /** Encodes {@code value}, decodes it into {@code into}, and checks that re-encoding gives the same bytes. */
    public static <T extends DescribedList> T through(DescribedList value, T into) {
        byte[] bytes = encode(value);
        decode(bytes, into);
        assertArrayEquals(bytes, encode(into), "re-encoding the decoded value gives the same bytes");
        return into;
    }

    /** Builds bytes with a writer (for hand-made encodings). */
    public static byte[] bytes(java.util.function.Consumer<AmqpWriter> body) {
        AmqpWriter writer = new AmqpWriter();
        body.accept(writer);
        return writer.toByteArray();
    }

    /** Parses hex such as {@code "00 53 10 c0"} into bytes. */
    public static byte[] hex(String text) {
        String s = text.replace(" ", "");
        byte[] out = new byte[s.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        }
        return out;
    }
}
