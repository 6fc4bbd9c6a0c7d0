package io.amqpservlet.bench.codec;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.codec.InvalidEncodingException;
import io.amqpservlet.protocol.text.KnownStrings;
import io.amqpservlet.protocol.types.Descriptors;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.Utf8String;

/**
 * The {@code requestMessage} workload with our codec: writes the sections with {@link AmqpWriter} and walks them
 * with {@link AmqpReader}. Encoding lives in {@link #encode(AmqpWriter)} alone so that switching it to the message
 * writer API (when it lands) changes one method.
 */
final class OursRequestCodec {
    private OursRequestCodec() {
    }

    /** Appends the four sections of the request message to {@code w}, from the field values. */
    static void encode(AmqpWriter w) {
        // AMQP 1.0 §3.2.1 header: durable is its first field.
        w.writeDescriptor(Descriptors.HEADER);
        w.startList();
        w.writeBoolean(RequestValues.DURABLE);
        w.endList();

        // AMQP 1.0 §3.2.4 properties: message-id, user-id, to, subject, reply-to, correlation-id, content-type;
        // trailing nulls omitted (§1.4).
        w.writeDescriptor(Descriptors.PROPERTIES);
        w.startList();
        w.writeString(RequestValues.MESSAGE_ID);
        w.writeNull();
        w.writeString(RequestValues.TO);
        w.writeString(RequestValues.SUBJECT);
        w.writeString(RequestValues.REPLY_TO);
        w.writeNull();
        w.writeSymbol(RequestValues.CONTENT_TYPE);
        w.endList();

        // AMQP 1.0 §3.2.5 application-properties: a map of string keys to simple values.
        w.writeDescriptor(Descriptors.APPLICATION_PROPERTIES);
        w.startMap();
        for (int i = 0; i < RequestValues.HEADER_COUNT; i++) {
            w.writeString(RequestValues.headerName(i));
            w.writeString(RequestValues.headerValue(i));
        }
        w.endMap();

        // AMQP 1.0 §3.2.6 data.
        w.writeDescriptor(Descriptors.DATA);
        byte[] body = RequestValues.body();
        w.writeBinary(body, 0, body.length);
    }

    /** The header names as pre-encoded constants, as a connector would keep them for names it writes often. */
    private static final Utf8String[] HEADER_NAMES = headerNames();
    private static final Symbol CONTENT_TYPE = Symbol.of(RequestValues.CONTENT_TYPE);

    private static Utf8String[] headerNames() {
        Utf8String[] names = new Utf8String[RequestValues.HEADER_COUNT];
        for (int i = 0; i < names.length; i++) {
            names[i] = Utf8String.of(RequestValues.headerName(i));
        }
        return names;
    }

    /**
     * {@link #encode} with the constant names pre-encoded: the header names are {@link Utf8String}s and the
     * content-type a {@link Symbol}, copied as bytes; the per-request values (message-id, to, subject, reply-to,
     * header values) are still encoded from their Strings.
     */
    static void encodePreencoded(AmqpWriter w) {
        w.writeDescriptor(Descriptors.HEADER);
        w.startList();
        w.writeBoolean(RequestValues.DURABLE);
        w.endList();

        w.writeDescriptor(Descriptors.PROPERTIES);
        w.startList();
        w.writeString(RequestValues.MESSAGE_ID);
        w.writeNull();
        w.writeString(RequestValues.TO);
        w.writeString(RequestValues.SUBJECT);
        w.writeString(RequestValues.REPLY_TO);
        w.writeNull();
        w.writeSymbol(CONTENT_TYPE);
        w.endList();

        w.writeDescriptor(Descriptors.APPLICATION_PROPERTIES);
        w.startMap();
        for (int i = 0; i < RequestValues.HEADER_COUNT; i++) {
            w.writeString(HEADER_NAMES[i]);
            w.writeString(RequestValues.headerValue(i));
        }
        w.endMap();

        w.writeDescriptor(Descriptors.DATA);
        byte[] body = RequestValues.body();
        w.writeBinary(body, 0, body.length);
    }

    /**
     * Decodes the sections in {@code bytes[offset, offset + length)} into Strings, as a bridge that hands Strings
     * to a servlet must. The body stays a view into {@code bytes}.
     */
    static void decode(AmqpReader r, byte[] bytes, int offset, int length, DecodedRequest out) {
        out.reset();
        r.wrap(bytes, offset, length);
        while (r.hasNext()) {
            long section = nextSection(r);
            if (section == Descriptors.PROPERTIES && !r.isNull()) {
                r.enter();
                r.nextField();
                out.messageId = r.getStringOrNull();
                r.nextField(); // user-id
                r.nextField();
                out.to = r.getStringOrNull();
                r.nextField();
                out.subject = r.getStringOrNull();
                r.nextField();
                out.replyTo = r.getStringOrNull();
                r.nextField(); // correlation-id
                r.nextField();
                out.contentType = r.getStringOrNull();
                r.exit();
            } else if (section == Descriptors.APPLICATION_PROPERTIES && !r.isNull()) {
                r.enter();
                while (r.hasNext()) {
                    r.next();
                    String name = r.getString();
                    r.next();
                    if (isString(r.formatCode())) {
                        out.addHeader(name, r.getString());
                    }
                }
                r.exit();
            } else if (section == Descriptors.DATA) {
                requireBinary(r);
                out.body = r.buffer();
                out.bodyOffset = r.valueOffset();
                out.bodyLength = r.valueLength();
            }
        }
    }

    /**
     * {@link #decode} the way the connector does it (container-integration's {@code AmqpRequestMapper}): the
     * method (subject), the content-type and the header names come from {@link KnownStrings#CACHE}, looked up by
     * their bytes without allocating (names case-folded, as HTTP field names are); the per-request values
     * (message-id, to, reply-to and every header value) are new Strings.
     */
    static void decodeCached(AmqpReader r, byte[] bytes, int offset, int length, DecodedRequest out) {
        out.reset();
        r.wrap(bytes, offset, length);
        while (r.hasNext()) {
            long section = nextSection(r);
            if (section == Descriptors.PROPERTIES && !r.isNull()) {
                r.enter();
                r.nextField();
                out.messageId = r.getStringOrNull();
                r.nextField(); // user-id
                r.nextField();
                out.to = r.getStringOrNull();
                r.nextField();
                out.subject = r.getStringOrNull(KnownStrings.CACHE);
                r.nextField();
                out.replyTo = r.getStringOrNull();
                r.nextField(); // correlation-id
                r.nextField();
                out.contentType = r.getStringOrNull(KnownStrings.CACHE);
                r.exit();
            } else if (section == Descriptors.APPLICATION_PROPERTIES && !r.isNull()) {
                r.enter();
                while (r.hasNext()) {
                    r.next();
                    if (!isString(r.formatCode())) {
                        throw new InvalidEncodingException("application-properties key is a "
                                + FormatCode.name(r.formatCode()) + ", not a string", r.valueStart());
                    }
                    String name = KnownStrings.CACHE.getLowerCase(r.buffer(), r.valueOffset(), r.valueLength());
                    r.next();
                    if (isString(r.formatCode())) {
                        out.addHeader(name, r.getString());
                    }
                }
                r.exit();
            } else if (section == Descriptors.DATA) {
                requireBinary(r);
                out.body = r.buffer();
                out.bodyOffset = r.valueOffset();
                out.bodyLength = r.valueLength();
            }
        }
    }

    /**
     * Reads the same fields as {@link #decode} without making a String: text is validated and copied into the
     * reused holders of {@code out}. This is the scan the connector needs, and allocates nothing.
     */
    static void scan(AmqpReader r, byte[] bytes, int offset, int length, ScannedRequest out) {
        out.reset();
        r.wrap(bytes, offset, length);
        while (r.hasNext()) {
            long section = nextSection(r);
            if (section == Descriptors.PROPERTIES && !r.isNull()) {
                r.enter();
                r.nextField();
                out.messageId.read(r);
                r.nextField(); // user-id
                r.nextField();
                out.to.read(r);
                r.nextField();
                out.subject.read(r);
                r.nextField();
                out.replyTo.read(r);
                r.nextField(); // correlation-id
                r.nextField();
                out.contentType.read(r);
                r.exit();
            } else if (section == Descriptors.APPLICATION_PROPERTIES && !r.isNull()) {
                r.enter();
                while (r.hasNext()) {
                    r.next();
                    int i = out.headerCount;
                    if (i == DecodedRequest.MAX_HEADERS) {
                        throw new IllegalStateException("more than " + DecodedRequest.MAX_HEADERS + " headers");
                    }
                    out.headerNames[i].read(r);
                    r.next();
                    if (isString(r.formatCode())) {
                        out.headerValues[i].read(r);
                        out.headerCount = i + 1;
                    }
                }
                r.exit();
            } else if (section == Descriptors.DATA) {
                requireBinary(r);
                out.body = r.buffer();
                out.bodyOffset = r.valueOffset();
                out.bodyLength = r.valueLength();
            }
        }
    }

    /**
     * Moves to the next section and onto its value; returns its descriptor code. The reader stays at the
     * section's depth: the caller exits only a list or map it enters.
     */
    private static long nextSection(AmqpReader r) {
        // AMQP 1.0 §3.2: a bare message is a sequence of described sections.
        return Descriptors.codeOfStepped(r, r.nextDescribed());
    }

    private static boolean isString(int code) {
        return code == FormatCode.STR8 || code == FormatCode.STR32;
    }

    private static void requireBinary(AmqpReader r) {
        int c = r.formatCode();
        if (c != FormatCode.VBIN8 && c != FormatCode.VBIN32) {
            throw new InvalidEncodingException("data section holds a " + FormatCode.name(c) + ", not a binary",
                    r.valueStart());
        }
    }
}
