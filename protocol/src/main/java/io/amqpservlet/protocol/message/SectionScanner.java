package io.amqpservlet.protocol.message;

import io.amqpservlet.protocol.codec.InvalidEncodingException;
import io.amqpservlet.protocol.types.Descriptors;
import io.amqpservlet.protocol.types.Symbol;

/**
 * Finds the sections of an encoded message that arrives in pieces (the payloads of the transfer frames of one
 * delivery), without holding the message: a push parser fed any slices of the byte stream, however sections are
 * split. It reports where each section starts and hands over the bytes inside data sections, so a receiver can
 * keep the header sections and stream the body (AMQP 1.0 §3.2).
 *
 * <p>Every AMQP value is a constructor byte followed by a width that the constructor fixes or a size prefix
 * announces (AMQP 1.0 §1.2, §1.6), so sections are skipped by counting bytes: nothing is decoded but the section
 * descriptors and the sizes. A described value (allowed inside an amqp-value) is skipped as its descriptor and its
 * value. Section order and value types are checked later, when the header sections are read with
 * {@link MessageView}; this scanner rejects only what it cannot step over.
 *
 * <p>Not thread-safe; reusable after {@link #reset()}. Allocates nothing.
 */
public final class SectionScanner {
    /** What the scanner reports while it is fed. */
    public interface Listener {
        /**
         * A section begins at {@code position} (counted from the first byte fed since {@link #reset()}). Called
         * once the descriptor is read, which may be in a later slice than the section's first byte.
         *
         * @param section the section's kind
         * @param position its offset from the start of the message
         */
        void onSection(MessageSection section, long position);

        /**
         * Bytes of a data section's binary, in order; valid only during the call.
         *
         * @param bytes holds the data bytes
         * @param offset where they start in {@code bytes}
         * @param length their length in bytes
         */
        void onData(byte[] bytes, int offset, int length);
    }

    private static final int SECTION = 0;       // at the 0x00 that starts a section
    private static final int DESCRIPTOR = 1;    // at the descriptor's constructor
    private static final int DESCRIPTOR_BYTES = 2; // inside a ulong code or a symbol's size and name
    private static final int VALUE = 3;         // at a constructor of the section's value (or a value inside it)
    private static final int SIZE = 4;          // inside a size prefix
    private static final int SKIP = 5;          // inside a value's bytes
    private static final int DATA = 6;          // inside a data section's binary

    /** The longest symbolic section descriptor ({@code amqp:application-properties:map}) and some room. */
    private static final int MAX_SYMBOL = 64;

    private final byte[] symbol = new byte[MAX_SYMBOL];
    private int state;
    private long position;
    private long sectionStart;
    private MessageSection section;
    /** Values still to step over before the section ends (a described value counts its descriptor and value). */
    private int pendingValues;
    private long remaining;
    private int sizeBytesLeft;
    private long size;
    /** Descriptor parsing: 0 ulong code, 1 symbol size, 2 symbol name. */
    private int descriptorPart;
    private long code;
    private int symbolLength;
    private boolean dataValue;

    /** Creates an empty {@code SectionScanner}. */
    public SectionScanner() {
    }

    /** Forgets everything: the next byte fed is the first of a message. */
    public void reset() {
        state = SECTION;
        position = 0;
        section = null;
        pendingValues = 0;
    }

    /** {@return the section being read, or null before the first descriptor} */
    public MessageSection section() {
        return section;
    }

    /** {@return how many bytes were fed since {@link #reset()}} */
    public long position() {
        return position;
    }

    /** {@return whether the bytes fed so far end exactly between two sections (a message may end here)} */
    public boolean atSectionBoundary() {
        return state == SECTION;
    }

    /**
     * Scans {@code length} bytes, calling {@code listener} for every section start and data section payload in
     * them.
     *
     * @param b holds the next bytes of the message
     * @param offset where they start in {@code b}
     * @param length their length in bytes
     * @param listener told about each section and data bytes as they are found
     * @throws InvalidEncodingException when a byte cannot start or continue a section (its offset in the message
     *         is reported, clipped to int)
     */
    public void feed(byte[] b, int offset, int length, Listener listener) {
        int i = offset;
        int end = offset + length;
        while (i < end) {
            switch (state) {
                case SECTION:
                    if (b[i] != 0x00) {
                        throw error("a message holds only described sections, found constructor 0x"
                                + Integer.toHexString(b[i] & 0xFF), i, offset);
                    }
                    sectionStart = position + (i - offset);
                    i++;
                    state = DESCRIPTOR;
                    break;
                case DESCRIPTOR:
                    i = descriptorConstructor(b[i] & 0xFF, i, offset);
                    if (state == VALUE) {
                        startSection(listener, i, offset);
                    }
                    break;
                case DESCRIPTOR_BYTES:
                    i = descriptorBytes(b, i, end, offset);
                    if (state == VALUE) {
                        startSection(listener, i, offset);
                    }
                    break;
                case VALUE:
                    i = valueConstructor(b[i] & 0xFF, i, offset);
                    break;
                case SIZE:
                    size = (size << 8) | (b[i] & 0xFF);
                    i++;
                    if (--sizeBytesLeft == 0) {
                        remaining = size;
                        state = dataValue ? DATA : SKIP;
                        if (remaining == 0) {
                            valueDone();
                        }
                    }
                    break;
                case SKIP: {
                    int n = (int) Math.min(remaining, end - i);
                    i += n;
                    remaining -= n;
                    if (remaining == 0) {
                        valueDone();
                    }
                    break;
                }
                case DATA: {
                    int n = (int) Math.min(remaining, end - i);
                    listener.onData(b, i, n);
                    i += n;
                    remaining -= n;
                    if (remaining == 0) {
                        valueDone();
                    }
                    break;
                }
                default:
                    throw new IllegalStateException("scanner state " + state);
            }
        }
        position += length;
    }

    private int descriptorConstructor(int constructor, int i, int offset) {
        // AMQP 1.0 §1.5: a descriptor is a ulong or a symbol; sections use 0x70-0x78 or their symbolic names.
        switch (constructor) {
            case 0x53: // smallulong
                descriptorPart = 0;
                code = 0;
                sizeBytesLeft = 1;
                state = DESCRIPTOR_BYTES;
                break;
            case 0x80: // ulong
                descriptorPart = 0;
                code = 0;
                sizeBytesLeft = 8;
                state = DESCRIPTOR_BYTES;
                break;
            case 0x44: // ulong0
                code = 0;
                state = VALUE;
                break;
            case 0xa3: // sym8
            case 0xb3: // sym32
                descriptorPart = 1;
                size = 0;
                sizeBytesLeft = constructor == 0xa3 ? 1 : 4;
                state = DESCRIPTOR_BYTES;
                break;
            default:
                throw error("a section descriptor must be a ulong or a symbol, found constructor 0x"
                        + Integer.toHexString(constructor), i, offset);
        }
        return i + 1;
    }

    private int descriptorBytes(byte[] b, int i, int end, int offset) {
        while (i < end && state == DESCRIPTOR_BYTES) {
            if (descriptorPart == 0) {
                code = (code << 8) | (b[i++] & 0xFF);
                if (--sizeBytesLeft == 0) {
                    state = VALUE;
                }
            } else if (descriptorPart == 1) {
                size = (size << 8) | (b[i++] & 0xFF);
                if (--sizeBytesLeft == 0) {
                    if (size > MAX_SYMBOL) {
                        throw error("a section descriptor symbol of " + size + " bytes is no section's", i - 1, offset);
                    }
                    symbolLength = 0;
                    descriptorPart = 2;
                    if (size == 0) {
                        code = symbolCode(i, offset);
                        state = VALUE;
                    }
                }
            } else {
                symbol[symbolLength++] = b[i++];
                if (symbolLength == size) {
                    code = symbolCode(i, offset);
                    state = VALUE;
                }
            }
        }
        return i;
    }

    private long symbolCode(int i, int offset) {
        for (long c = Descriptors.HEADER; c <= Descriptors.FOOTER; c++) {
            Symbol s = Descriptors.symbolOf(c);
            if (s != null && s.matches(symbol, 0, symbolLength)) {
                return c;
            }
        }
        throw error("unknown message section descriptor symbol", i, offset);
    }

    private void startSection(Listener listener, int i, int offset) {
        MessageSection s = MessageSection.ofDescriptor(code);
        if (s == null) {
            throw error("unknown message section descriptor 0x" + Long.toHexString(code), i, offset);
        }
        section = s;
        pendingValues = 1;
        dataValue = false;
        listener.onSection(s, sectionStart);
    }

    private int valueConstructor(int constructor, int i, int offset) {
        if (constructor == 0x00) {
            // A described value: its descriptor, then its value (AMQP 1.0 §1.2); allowed inside an amqp-value.
            pendingValues++;
            return i + 1;
        }
        boolean isData = section == MessageSection.DATA && pendingValues == 1;
        if (isData && constructor != 0xa0 && constructor != 0xb0) {
            throw error("a data section holds a binary, found constructor 0x" + Integer.toHexString(constructor),
                    i, offset);
        }
        dataValue = isData;
        switch (constructor >>> 4) {
            case 0x4:
                valueDone();
                return i + 1;
            case 0x5:
                return fixed(1, i);
            case 0x6:
                return fixed(2, i);
            case 0x7:
                return fixed(4, i);
            case 0x8:
                return fixed(8, i);
            case 0x9:
                return fixed(16, i);
            case 0xa:
            case 0xc:
            case 0xe:
                return sized(1, i);
            case 0xb:
            case 0xd:
            case 0xf:
                return sized(4, i);
            default:
                throw error("no AMQP type has constructor 0x" + Integer.toHexString(constructor), i, offset);
        }
    }

    private int fixed(int width, int i) {
        remaining = width;
        state = SKIP;
        return i + 1;
    }

    private int sized(int prefixBytes, int i) {
        // vbin/str/sym: the size counts the bytes that follow; list/map/array: the size counts the count field
        // and the elements (AMQP 1.0 §1.6.22-§1.6.25), so skipping size bytes steps over the whole compound.
        size = 0;
        sizeBytesLeft = prefixBytes;
        state = SIZE;
        return i + 1;
    }

    private void valueDone() {
        if (--pendingValues == 0) {
            state = SECTION;
        } else {
            state = VALUE;
        }
    }

    private InvalidEncodingException error(String message, int i, int offset) {
        long at = position + (i - offset);
        return new InvalidEncodingException(message, (int) Math.min(at, Integer.MAX_VALUE));
    }
}
