package io.amqpservlet.protocol.frame;

/**
 * The 8-byte protocol header that opens each layer of an AMQP 1.0 connection (§2.2, §5.2.1, §5.3.1):
 * {@code "AMQP"}, a protocol id, and the version 1.0.0. Id 0 is AMQP itself, 2 is TLS, 3 is SASL.
 *
 * <p>{@link #parse} tells apart bytes that are not AMQP at all (an exception: close without answering) from an
 * AMQP header with an id or version we do not support (a header whose {@link #isSupported()} is false: §2.2 says
 * to answer with the header we do support, then close).
 */
public final class ProtocolHeader {
    /** The length of a protocol header in bytes. */
    public static final int LENGTH = 8;

    /** Protocol id of the AMQP layer. */
    public static final int ID_AMQP = 0;
    /** Protocol id of the TLS layer (§5.2.1). */
    public static final int ID_TLS = 2;
    /** Protocol id of the SASL layer (§5.3.1). */
    public static final int ID_SASL = 3;

    /** {@code AMQP 0 1.0.0}. */
    public static final ProtocolHeader AMQP = new ProtocolHeader(ID_AMQP, 1, 0, 0);
    /** {@code AMQP 2 1.0.0}. */
    public static final ProtocolHeader TLS = new ProtocolHeader(ID_TLS, 1, 0, 0);
    /** {@code AMQP 3 1.0.0}. */
    public static final ProtocolHeader SASL = new ProtocolHeader(ID_SASL, 1, 0, 0);

    private final int protocolId;
    private final int major;
    private final int minor;
    private final int revision;

    private ProtocolHeader(int protocolId, int major, int minor, int revision) {
        this.protocolId = protocolId;
        this.major = major;
        this.minor = minor;
        this.revision = revision;
    }

    /** {@return the protocol id byte: 0 AMQP, 2 TLS, 3 SASL} */
    public int protocolId() {
        return protocolId;
    }

    /** {@return the major version byte} */
    public int major() {
        return major;
    }

    /** {@return the minor version byte} */
    public int minor() {
        return minor;
    }

    /** {@return the revision byte} */
    public int revision() {
        return revision;
    }

    /** {@return whether this is one of {@link #AMQP}, {@link #TLS} or {@link #SASL}} */
    public boolean isSupported() {
        return this == AMQP || this == TLS || this == SASL;
    }

    /**
     * {@return whether the first {@code min(length, 4)} bytes could begin a protocol header, i.e. match {@code "AMQP"}: lets
     * a server turn away an HTTP request or a TLS hello after the first byte instead of waiting for eight}
     *
     * @param bytes holds the bytes to check
     * @param offset where they start in {@code bytes}
     * @param length their length in bytes
     */
    public static boolean isAmqpPrefix(byte[] bytes, int offset, int length) {
        int n = Math.min(length, 4);
        for (int i = 0; i < n; i++) {
            if (bytes[offset + i] != "AMQP".charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Reads the protocol header at {@code bytes[offset, offset + 8)}: one of the three constants when supported,
     * otherwise a new header describing what the peer asked for.
     *
     * @param bytes holds the bytes to read
     * @param offset where it starts in {@code bytes}
     * @return the header
     * @throws FramingException if the bytes do not start with {@code "AMQP"}
     */
    public static ProtocolHeader parse(byte[] bytes, int offset) {
        if (!isAmqpPrefix(bytes, offset, 4)) {
            throw new FramingException("not an AMQP protocol header: bytes " + printable(bytes, offset), offset);
        }
        int id = bytes[offset + 4] & 0xFF;
        int major = bytes[offset + 5] & 0xFF;
        int minor = bytes[offset + 6] & 0xFF;
        int revision = bytes[offset + 7] & 0xFF;
        if (major == 1 && minor == 0 && revision == 0) {
            if (id == ID_AMQP) {
                return AMQP;
            } else if (id == ID_TLS) {
                return TLS;
            } else if (id == ID_SASL) {
                return SASL;
            }
        }
        return new ProtocolHeader(id, major, minor, revision);
    }

    private static String printable(byte[] bytes, int offset) {
        StringBuilder text = new StringBuilder(32);
        for (int i = offset; i < offset + LENGTH && i < bytes.length; i++) {
            int b = bytes[i] & 0xFF;
            if (b >= 0x20 && b < 0x7F) {
                text.append((char) b);
            } else {
                text.append("\\x").append(Character.forDigit(b >> 4, 16)).append(Character.forDigit(b & 0xF, 16));
            }
        }
        return "\"" + text + "\"";
    }

    /**
     * Writes the 8 bytes at {@code dst[offset]}; returns the offset after them.
     *
     * @param dst the array to write into
     * @param offset where in {@code dst} the first byte goes
     * @return the offset after the header
     */
    public int writeTo(byte[] dst, int offset) {
        dst[offset] = 'A';
        dst[offset + 1] = 'M';
        dst[offset + 2] = 'Q';
        dst[offset + 3] = 'P';
        dst[offset + 4] = (byte) protocolId;
        dst[offset + 5] = (byte) major;
        dst[offset + 6] = (byte) minor;
        dst[offset + 7] = (byte) revision;
        return offset + LENGTH;
    }

    /** {@return the 8 bytes, in a new array} */
    public byte[] toByteArray() {
        byte[] bytes = new byte[LENGTH];
        writeTo(bytes, 0);
        return bytes;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ProtocolHeader h && h.protocolId == protocolId && h.major == major
                && h.minor == minor && h.revision == revision;
    }

    @Override
    public int hashCode() {
        return protocolId << 24 | major << 16 | minor << 8 | revision;
    }

    @Override
    public String toString() {
        return "AMQP " + protocolId + " " + major + "." + minor + "." + revision;
    }
}
