package io.amqpservlet.protocol.codec;

/**
 * Measures encoded values: from a constructor's layout (AMQP 1.0 §1.2, §1.6) it reads the size, count and array
 * element fields, checks them against the bytes present, the enclosing compound and the {@link DecoderLimits},
 * and sets the current value's extent. {@link AmqpReader} adds the navigation (which compounds are open, where
 * the next value starts) on top.
 *
 * <p>The methods are final and the state is in fields, so calls from the reader bind statically and inline as
 * they did when they were private methods of the reader.
 */
abstract class MeasuringCursor extends AmqpCursor {
    /** Per format code: the value's width if its layout is fixed, else -1. */
    static final byte[] FIXED_WIDTH_OR_NEGATIVE = new byte[256];

    static {
        for (int c = 0; c < 256; c++) {
            FIXED_WIDTH_OR_NEGATIVE[c] = FormatCode.layout(c) == FormatCode.LAYOUT_FIXED ? (byte) FormatCode.fixedWidth(c) : -1;
        }
    }

    final DecoderLimits limits;
    // The end of the input.
    int limit;
    // How many compounds are open, and the format code of the innermost one.
    int depth;
    int curCode;

    MeasuringCursor(DecoderLimits limits) {
        this.limits = limits;
    }

    final void readDescribed(int p, int bound) {
        // AMQP 1.0 §1.2: constructor = format-code / %x00 descriptor constructor. The descriptor is any value and
        // the constructor may itself be described, so both are measured with endOf, which bounds that chain.
        boolean atInputEnd = depth == 0;
        // A small ulong descriptor (every performative and section) is measured here; the rest by endOf.
        int descriptorEnd = p + 3 <= bound && buf[p + 1] == (byte) FormatCode.SMALLULONG
                ? p + 3 : endOf(p + 1, bound, 1, atInputEnd);
        int end = endOf(descriptorEnd, bound, 1, atInputEnd);
        code = FormatCode.DESCRIBED;
        valueOffset = descriptorEnd;
        valueEnd = end;
        count = 2;
    }

    /**
     * Reads the size and count fields of a value of format {@code c} whose payload starts at {@code p}, and sets
     * the current value. {@code inArray} selects array-element rules (no list0 widths, etc.).
     */
    final void readPayload(int c, int p, int bound, boolean inArray) {
        code = c;
        // The two layouts of nearly every value are handled here; the rest out of line, so that this method is
        // small enough for the JIT to inline into next(). A fixed width costs one table load: this is on the
        // critical path from one value to the next.
        int width = FIXED_WIDTH_OR_NEGATIVE[c];
        if (width >= 0) {
            int end = p + width;
            checkEnd(end, bound, c);
            valueOffset = p;
            valueEnd = end;
            count = 0;
            return;
        }
        byte layout = FormatCode.layout(c);
        if (layout == FormatCode.LAYOUT_VARIABLE8) {
            checkEnd(p + 1, bound, c);
            int end = p + 1 + (buf[p] & 0xFF);
            checkEnd(end, bound, c);
            valueOffset = p + 1;
            valueEnd = end;
            count = 0;
        } else {
            readOtherPayload(layout, c, p, bound, inArray);
        }
    }

    final void readOtherPayload(byte layout, int c, int p, int bound, boolean inArray) {
        switch (layout) {
            case FormatCode.LAYOUT_VARIABLE32: {
                checkEnd(p + 4, bound, c);
                long size = (int) INT.get(buf, p) & 0xFFFFFFFFL;
                checkEnd(p + 4 + size, bound, c);
                valueOffset = p + 4;
                valueEnd = (int) (p + 4 + size);
                count = 0;
                return;
            }
            case FormatCode.LAYOUT_COMPOUND8: {
                checkEnd(p + 2, bound, c);
                int size = buf[p] & 0xFF;
                compound(c, p, size, buf[p + 1] & 0xFF, 1, bound);
                return;
            }
            case FormatCode.LAYOUT_COMPOUND32: {
                checkEnd(p + 8, bound, c);
                long size = (int) INT.get(buf, p) & 0xFFFFFFFFL;
                long n = (int) INT.get(buf, p + 4) & 0xFFFFFFFFL;
                compound(c, p, size, n, 4, bound);
                return;
            }
            case FormatCode.LAYOUT_ARRAY8: {
                checkEnd(p + 2, bound, c);
                array(c, p, buf[p] & 0xFF, buf[p + 1] & 0xFF, 1, bound);
                return;
            }
            case FormatCode.LAYOUT_ARRAY32: {
                checkEnd(p + 8, bound, c);
                long size = (int) INT.get(buf, p) & 0xFFFFFFFFL;
                long n = (int) INT.get(buf, p + 4) & 0xFFFFFFFFL;
                array(c, p, size, n, 4, bound);
                return;
            }
            default:
                throw invalidCode(c, p, inArray);
        }
    }

    static InvalidEncodingException invalidCode(int c, int p, boolean inArray) {
        return new InvalidEncodingException("invalid format code 0x" + Integer.toHexString(c)
                + (inArray ? " as array element constructor" : ""), inArray ? p : p - 1);
    }

    final void compound(int c, int p, long size, long n, int width, int bound) {
        long end = p + width + size;
        checkEnd(end, bound, c);
        if (size < width) {
            throw new InvalidEncodingException(FormatCode.name(c) + " size " + size + " is smaller than its count field", p);
        }
        // Every element has at least a one-byte constructor.
        if (n > size - width) {
            throw new InvalidEncodingException(FormatCode.name(c) + " count " + n + " exceeds its "
                    + (size - width) + " bytes of elements", p);
        }
        if (n > limits.maxElements()) {
            throw new DecodeLimitException(FormatCode.name(c) + " count " + n + " exceeds the limit of "
                    + limits.maxElements(), p);
        }
        if ((c == FormatCode.MAP8 || c == FormatCode.MAP32) && (n & 1) != 0) {
            throw new InvalidEncodingException(FormatCode.name(c) + " count " + n + " is odd", p);
        }
        valueOffset = p + 2 * width;
        valueEnd = (int) end;
        count = (int) n;
    }

    final void array(int c, int p, long size, long n, int width, int bound) {
        long end = p + width + size;
        checkEnd(end, bound, c);
        int e = (int) end;
        if (size < width + 1) {
            throw new InvalidEncodingException(FormatCode.name(c) + " size " + size + " leaves no room for its element constructor", p);
        }
        if (n > limits.maxElements()) {
            throw new DecodeLimitException(FormatCode.name(c) + " count " + n + " exceeds the limit of "
                    + limits.maxElements(), p);
        }
        int q = p + 2 * width;
        int descriptor = -1;
        if ((buf[q] & 0xFF) == FormatCode.DESCRIBED) {
            descriptor = q + 1;
            q = endOf(q + 1, e, 1, false);
            if (q >= e) {
                throw new InvalidEncodingException(FormatCode.name(c) + " described element constructor has no format code", q);
            }
        }
        int ec = buf[q] & 0xFF;
        if (!FormatCode.isValid(ec)) {
            throw new InvalidEncodingException("invalid array element constructor 0x" + Integer.toHexString(ec), q);
        }
        q++;
        if (FormatCode.layout(ec) == FormatCode.LAYOUT_FIXED) {
            long need = n * FormatCode.fixedWidth(ec);
            if (need != e - q) {
                throw new InvalidEncodingException(FormatCode.name(c) + " of " + n + " " + FormatCode.name(ec)
                        + " needs " + need + " bytes but holds " + (e - q), p);
            }
        } else if (n > e - q) {
            throw new InvalidEncodingException(FormatCode.name(c) + " count " + n + " exceeds its " + (e - q)
                    + " bytes of elements", p);
        }
        valueOffset = q;
        valueEnd = e;
        count = (int) n;
        elementCode = ec;
        elementDescriptor = descriptor;
    }

    final void checkEnd(long end, int bound, int c) {
        if (end > bound) {
            // Kept out of line so that this check stays small enough to inline on every value.
            throw overrun(end, bound, c);
        }
    }

    final DecodeException overrun(long end, int bound, int c) {
        // At top level the bound is the end of the input: more bytes may yet come. Inside a compound the
        // bound is a declared size that was already checked against the input, so overrunning it is wrong.
        if (depth == 0) {
            return new TruncatedEncodingException(FormatCode.name(c) + " needs " + (end - start)
                    + " bytes but only " + (limit - start) + " remain", start);
        }
        return new InvalidEncodingException(FormatCode.name(c) + " runs to offset " + end
                + " past the end of its enclosing " + FormatCode.name(curCode) + " at offset " + bound, start);
    }

    /** The offset after the complete value whose constructor starts at {@code p}; validates only what it must. */
    final int endOf(int p, int bound, int chain, boolean atInputEnd) {
        if (p >= bound) {
            throwEnd(p + 1, bound, "value", atInputEnd);
        }
        int c = buf[p] & 0xFF;
        if (c == FormatCode.DESCRIBED) {
            if (chain >= limits.maxDepth()) {
                throw new DecodeLimitException("described constructors nested deeper than " + limits.maxDepth(), p);
            }
            int descriptorEnd = endOf(p + 1, bound, chain + 1, atInputEnd);
            return endOf(descriptorEnd, bound, chain + 1, atInputEnd);
        }
        long end;
        int q = p + 1;
        switch (FormatCode.layout(c)) {
            case FormatCode.LAYOUT_FIXED:
                end = q + FormatCode.fixedWidth(c);
                break;
            case FormatCode.LAYOUT_VARIABLE8:
            case FormatCode.LAYOUT_COMPOUND8:
            case FormatCode.LAYOUT_ARRAY8:
                if (q >= bound) {
                    throwEnd(q + 1, bound, FormatCode.name(c), atInputEnd);
                }
                end = q + 1 + (buf[q] & 0xFF);
                break;
            case FormatCode.LAYOUT_VARIABLE32:
            case FormatCode.LAYOUT_COMPOUND32:
            case FormatCode.LAYOUT_ARRAY32:
                if (q + 4 > bound) {
                    throwEnd(q + 4, bound, FormatCode.name(c), atInputEnd);
                }
                end = q + 4 + ((int) INT.get(buf, q) & 0xFFFFFFFFL);
                break;
            default:
                throw new InvalidEncodingException("invalid format code 0x" + Integer.toHexString(c), p);
        }
        if (end > bound) {
            throwEnd(end, bound, FormatCode.name(c), atInputEnd);
        }
        return (int) end;
    }

    final void throwEnd(long end, int bound, String what, boolean atInputEnd) {
        if (atInputEnd) {
            throw new TruncatedEncodingException(what + " runs to offset " + end + " past the end of input at "
                    + limit, start);
        }
        throw new InvalidEncodingException(what + " runs to offset " + end + " past the end of its enclosing value at "
                + bound, start);
    }
}
