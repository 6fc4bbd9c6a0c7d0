package io.amqpservlet.protocol.codec;

import io.amqpservlet.protocol.types.Symbol;

import java.nio.ByteBuffer;

/**
 * A streaming AMQP 1.0 decoder that is also a cursor: {@link #next()} positions it on the next encoded value
 * without decoding it, and coercing getters pull out what the caller wants ({@link #getLong()} accepts every
 * integral encoding, {@link #getString()} decodes only when asked, {@link #valueOffset()} and
 * {@link #valueLength()} give the raw bytes). Compound values are stepped into with {@link #enter()} and out of
 * with {@link #exit()}, which skips whatever was not read in O(1) using the size field.
 *
 * <p>Nothing is allocated per value, per compound or per call: the nesting stack is sized once from
 * {@link DecoderLimits#maxDepth()}. One reader is meant to be reused for every buffer a connection decodes.
 *
 * <p>Validation: every size and count is checked against the bytes present and against its enclosing compound
 * before it is used. Running past the end of the input throws {@link TruncatedEncodingException}; bytes that
 * contradict each other throw {@link InvalidEncodingException}; UTF-8 and symbol ASCII are validated by the getters
 * that decode them. A reader is not thread-safe.
 *
 * <pre>{@code
 * reader.wrap(bytes, 0, bytes.length);
 * reader.next();                 // a list
 * reader.enter();
 * while (reader.hasNext()) {
 *     reader.next();
 *     sum += reader.getLong();   // smallint, int, uint, long, ... all accepted
 * }
 * reader.exit();
 * }</pre>
 */
public final class AmqpReader extends MeasuringCursor {
    private static final byte[] EMPTY = new byte[0];

    private int pos;
    // The descriptor nextDescribed() or unwrapDescribed() stepped over, for describedBy(Symbol); -1 before any.
    private int steppedDescriptor = -1;

    // Open compounds: their number (depth) and the innermost one's code (curCode) are in MeasuringCursor.
    // The innermost open compound, kept in fields so that next() touches no array; the stack below holds the
    // outer ones and is read and written only by enter() and exit().
    private int curEnd;
    private int curRemaining;
    private int curElementCode;
    private int curElementDescriptor = -1;
    private final int[] stackEnd;
    private final int[] stackRemaining;
    private final int[] stackCode;
    private final int[] stackElementCode;
    private final int[] stackElementDescriptor;

    /** A reader with {@link DecoderLimits#DEFAULT}. */
    public AmqpReader() {
        this(DecoderLimits.DEFAULT);
    }

    /** A reader that enforces {@code limits}; its nesting stack is sized once from {@link DecoderLimits#maxDepth()}. */
    public AmqpReader(DecoderLimits limits) {
        super(limits);
        this.buf = EMPTY;
        int n = limits.maxDepth();
        stackEnd = new int[n];
        stackRemaining = new int[n];
        stackCode = new int[n];
        stackElementCode = new int[n];
        stackElementDescriptor = new int[n];
    }

    /** The limits this reader enforces. */
    public DecoderLimits limits() {
        return limits;
    }

    /** Starts reading {@code bytes[offset, offset + length)}; offsets in errors and getters are into {@code bytes}. */
    public AmqpReader wrap(byte[] bytes, int offset, int length) {
        if (offset < 0 || length < 0 || offset + length > bytes.length || offset + length < 0) {
            throw new IndexOutOfBoundsException("offset " + offset + " length " + length + " of " + bytes.length);
        }
        if (this.buf != bytes) {
            // Readers are wrapped around the same few buffers again and again, and a reference store costs a
            // garbage-collector barrier (with a memory fence under G1): skip the store when nothing changes.
            this.buf = bytes;
        }
        this.pos = offset;
        this.limit = offset + length;
        this.depth = 0;
        this.curEnd = this.limit;
        this.curElementCode = 0;
        this.curElementDescriptor = -1;
        this.code = -1;
        this.steppedDescriptor = -1;
        return this;
    }

    /**
     * Starts reading the remaining bytes of a heap buffer, without copying; the buffer's position is not changed.
     *
     * @throws IllegalArgumentException for a direct or read-only buffer: copy it into an array first
     */
    public AmqpReader wrap(ByteBuffer buffer) {
        if (!buffer.hasArray()) {
            throw new IllegalArgumentException("the reader decodes heap buffers; copy a direct buffer first");
        }
        return wrap(buffer.array(), buffer.arrayOffset() + buffer.position(), buffer.remaining());
    }

    /** The buffer being read. */
    public byte[] buffer() {
        return buf;
    }

    /** Where the next value starts. */
    public int position() {
        return pos;
    }

    /** The end of the input. */
    public int limit() {
        return limit;
    }

    /** How many compounds are open. */
    public int depth() {
        return depth;
    }

    // ------------------------------------------------------------------------------------------ navigation

    /** Whether another value follows: in the open compound, or at top level before the end of the input. */
    public boolean hasNext() {
        return depth > 0 ? curRemaining > 0 : pos < limit;
    }

    /**
     * Moves to the next value and returns its format code ({@link FormatCode#DESCRIBED} for a described value;
     * inside an array, the array's element code).
     *
     * @throws IllegalStateException when there is no next value (check {@link #hasNext()})
     */
    public int next() {
        int p = pos;
        int bound;
        if (depth > 0) {
            if (curRemaining == 0) {
                throw noNext();
            }
            curRemaining--;
            bound = curEnd;
            int arrayCode = curElementCode;
            if (arrayCode != 0) {
                // AMQP 1.0 §1.2: array elements carry no constructor of their own.
                start = p;
                readPayload(arrayCode, p, bound, true);
                pos = valueEnd;
                return code;
            }
            if (p >= bound) {
                throw countOverrun(bound);
            }
        } else {
            if (p >= limit) {
                throw noNext();
            }
            bound = limit;
        }
        start = p;
        int c = buf[p] & 0xFF;
        int width = FIXED_WIDTH_OR_NEGATIVE[c];
        if (width >= 0) {
            // The common case, every fixed-width scalar: one table load, one bounds check.
            int end = p + 1 + width;
            if (end > bound) {
                checkEnd(end, bound, c);
            }
            code = c;
            valueOffset = p + 1;
            valueEnd = end;
            count = 0; // list0 is fixed-width too, and enter() reads its count
            pos = end;
            return c;
        }
        if (c == FormatCode.DESCRIBED) {
            readDescribed(p, bound);
        } else {
            readPayload(c, p + 1, bound, false);
        }
        pos = valueEnd;
        return code;
    }

    /**
     * Moves to the next value and returns it as an int: {@code next()} then {@link #getInt()} in one call, with
     * the same coercions and errors, for decoding runs of integers. The reader is left on the value as
     * {@code next()} leaves it.
     *
     * @throws UnexpectedTypeException when the value is not an integer or does not fit 32 bits
     * @throws IllegalStateException when there is no next value (check {@link #hasNext()})
     */
    public int nextInt() {
        int p = pos;
        // The common case inside a list or map: a smallint, int, smalluint or uint that fits its compound.
        if (depth > 0 && curRemaining > 0 && curElementCode == 0 && p + 5 <= curEnd) {
            byte[] b = buf;
            int c = b[p] & 0xFF;
            int v;
            int end;
            if (c == FormatCode.INT || c == FormatCode.UINT) {
                v = (int) INT.get(b, p + 1);
                end = p + 5;
            } else if (c == FormatCode.SMALLINT) {
                v = b[p + 1];
                end = p + 2;
            } else if (c == FormatCode.SMALLUINT) {
                v = b[p + 1] & 0xFF;
                end = p + 2;
            } else {
                next();
                return getInt();
            }
            curRemaining--;
            start = p;
            code = c;
            valueOffset = p + 1;
            valueEnd = end;
            count = 0;
            pos = end;
            return v;
        }
        next();
        return getInt();
    }

    /** The count promised more elements than the declared size holds. Out of line. */
    private InvalidEncodingException countOverrun(int bound) {
        return new InvalidEncodingException(FormatCode.name(curCode) + " has " + (curRemaining + 1)
                + " elements left but its bytes end at offset " + bound, pos);
    }

    /** Out of line, keeping next() small enough to inline. */
    private IllegalStateException noNext() {
        return depth > 0
                ? new IllegalStateException("no more elements in " + FormatCode.name(curCode))
                : new IllegalStateException("no more values at offset " + pos);
    }

    /**
     * Like {@link #next()}, but past the last element of a list it reports a null instead of failing: AMQP
     * 1.0 §1.4 lets an encoder omit trailing null fields, so performative decoders read fields with this.
     */
    public int nextField() {
        if (depth > 0 && curRemaining == 0) {
            code = FormatCode.NULL;
            start = pos;
            valueOffset = pos;
            valueEnd = pos;
            count = 0;
            return code;
        }
        return next();
    }

    /**
     * Moves to the next value, which must be described (AMQP 1.0 §1.2), steps over its descriptor and onto the
     * value it describes, in one call: what {@code next()}, {@link #descriptorCode()}, {@code enter()},
     * {@code next()}, {@code next()} do, without measuring the described value twice and without opening a
     * compound for it. The described value counts as one element of the open compound, the reader stays at the
     * same depth, and there is no {@code exit()} for the described value (only for a list or map you then
     * enter). Inside an array of described values, moves to the next element and returns the array's descriptor.
     *
     * @return the descriptor as a number (such as 0x14 for transfer), or -1 when it is not an integral value
     *         (a symbolic descriptor: ask {@link #describedBy(Symbol)})
     * @throws UnexpectedTypeException when the next value is not described
     * @throws IllegalStateException when there is no next value
     */
    public long nextDescribed() {
        int p = pos;
        int bound;
        if (depth > 0) {
            if (curElementCode != 0 || curRemaining == 0) {
                return nextDescribedSlow();
            }
            bound = curEnd;
        } else {
            bound = limit;
        }
        // The common case, a small ulong descriptor (every performative and section): checked byte by byte here;
        // anything else, and every error, takes the general path so that it reports as next() does.
        if (p + 3 >= bound || buf[p] != (byte) FormatCode.DESCRIBED || buf[p + 1] != (byte) FormatCode.SMALLULONG) {
            return nextDescribedSlow();
        }
        if (depth > 0) {
            curRemaining--;
        }
        steppedDescriptor = p + 1;
        valueAt(p + 3, bound);
        return buf[p + 2] & 0xFF;
    }

    private long nextDescribedSlow() {
        if (depth > 0 && curElementCode != 0) {
            // AMQP 1.0 §1.2: the elements of an array of described values share the array's descriptor.
            int descriptor = curElementDescriptor;
            if (descriptor < 0) {
                throw new UnexpectedTypeException("expected a described value but found an element of an array of "
                        + FormatCode.name(curElementCode), pos);
            }
            next();
            steppedDescriptor = descriptor;
            return integralAt(descriptor);
        }
        if (next() != FormatCode.DESCRIBED) {
            throw new UnexpectedTypeException("expected a described value but found " + FormatCode.name(code), start);
        }
        return unwrapDescribed();
    }

    /**
     * Moves from the current described value (just returned by {@code next()}) onto the value it describes,
     * without opening a compound: the reader stays at the same depth, and the described value needs no
     * {@code exit()}. Cheaper than {@code enter()}, {@code next()}, {@code next()}, which it replaces.
     *
     * @return the descriptor as a number, or -1 when it is not an integral value (ask {@link #describedBy(Symbol)})
     * @throws IllegalStateException when the current value is not described
     */
    public long unwrapDescribed() {
        if (code != FormatCode.DESCRIBED) {
            throw new IllegalStateException("cannot unwrap " + FormatCode.name(code) + " at offset " + start
                    + ": it is not described");
        }
        int descriptor = start + 1;
        steppedDescriptor = descriptor;
        // next() measured the descriptor and the value (valueOffset is where the value starts): both fit.
        valueAt(valueOffset, valueEnd);
        return integralAt(descriptor);
    }

    /**
     * {@link #nextDescribed()}, then {@code enter()} the list it describes: the way into a composite type
     * (AMQP 1.0 §1.4) such as a performative or a message section. Leave the list with one {@code exit()}.
     *
     * @return the descriptor as a number, or -1 when it is not an integral value (ask {@link #describedBy(Symbol)})
     * @throws UnexpectedTypeException when the next value is not a described list
     */
    public long enterDescribedList() {
        long descriptor = nextDescribed();
        int c = code;
        if (c != FormatCode.LIST0 && c != FormatCode.LIST8 && c != FormatCode.LIST32) {
            throw new UnexpectedTypeException("expected a described list but the described value is a "
                    + FormatCode.name(c), start);
        }
        enter();
        return descriptor;
    }

    /**
     * Whether the descriptor stepped over by the last {@link #nextDescribed()}, {@link #unwrapDescribed()} or
     * {@link #enterDescribedList()} is the symbol {@code name} (AMQP 1.0 §1.5: every descriptor has a symbolic
     * form as well as a numeric one).
     */
    public boolean describedBy(Symbol name) {
        return steppedDescriptor >= 0 && symbolAt(steppedDescriptor, name);
    }

    /** Makes the value at {@code q} (already known to start before {@code bound}) current, without counting it. */
    private void valueAt(int q, int bound) {
        start = q;
        int c = buf[q] & 0xFF;
        if (c == FormatCode.DESCRIBED) {
            readDescribed(q, bound);
        } else {
            readPayload(c, q + 1, bound, false);
        }
        pos = valueEnd;
    }

    /**
     * Steps into the current list, map, array or described value. A described value reads as two values:
     * its descriptor, then the value it describes.
     */
    public void enter() {
        AmqpType t = type();
        if (t == null || !t.isCompound()) {
            throw new IllegalStateException("cannot enter " + FormatCode.name(code) + " at offset " + start);
        }
        if (depth == stackEnd.length) {
            throw new DecodeLimitException("nesting deeper than " + stackEnd.length, start);
        }
        if (depth > 0) {
            int d = depth - 1;
            stackEnd[d] = curEnd;
            stackRemaining[d] = curRemaining;
            stackCode[d] = curCode;
            stackElementCode[d] = curElementCode;
            stackElementDescriptor[d] = curElementDescriptor;
        }
        depth++;
        curEnd = valueEnd;
        curRemaining = count;
        curCode = code;
        if (code == FormatCode.ARRAY8 || code == FormatCode.ARRAY32) {
            curElementCode = elementCode;
            curElementDescriptor = elementDescriptor;
        } else {
            curElementCode = 0;
            curElementDescriptor = -1;
        }
        pos = code == FormatCode.DESCRIBED ? start + 1 : valueOffset;
    }

    /**
     * Leaves the innermost open compound, skipping its unread elements in O(1). When every element was read,
     * checks that they used exactly the bytes the compound declared.
     */
    public void exit() {
        if (depth == 0) {
            throw new IllegalStateException("no compound is open");
        }
        int end = curEnd;
        if (curRemaining == 0 && pos != end) {
            throw new InvalidEncodingException(FormatCode.name(curCode) + " declares " + (end - start)
                    + " bytes up to offset " + end + " but its elements end at offset " + pos, pos);
        }
        pos = end;
        code = -1;
        if (--depth > 0) {
            int d = depth - 1;
            curEnd = stackEnd[d];
            curRemaining = stackRemaining[d];
            curCode = stackCode[d];
            curElementCode = stackElementCode[d];
            curElementDescriptor = stackElementDescriptor[d];
        } else {
            curEnd = limit;
            curElementCode = 0;
            curElementDescriptor = -1;
        }
    }

    /** The format code of the compound that is open, or -1 at top level. */
    public int containerCode() {
        return depth > 0 ? curCode : -1;
    }

    /** Elements of the open compound not yet read by {@link #next()}. */
    public int remaining() {
        return depth > 0 ? curRemaining : 0;
    }

    /**
     * Moves the top-level position to {@code offset} (for example back to a value found by an earlier scan).
     * Only allowed with no compound open.
     */
    public void seek(int offset) {
        if (depth != 0) {
            throw new IllegalStateException("seek inside a compound");
        }
        if (offset < 0 || offset > limit) {
            throw new IndexOutOfBoundsException("offset " + offset + " beyond limit " + limit);
        }
        pos = offset;
        code = -1;
    }

    /** While inside an array: the offset of its element descriptor, or -1 when its elements are not described. */
    public int enclosingArrayDescriptorOffset() {
        return depth > 0 ? curElementDescriptor : -1;
    }

    /** Skips the current value's remaining elements when inside a compound: an alias of {@link #exit()}. */
    public void skipRest() {
        exit();
    }

    @Override
    public String toString() {
        return "AmqpReader[pos=" + pos + ", limit=" + limit + ", depth=" + depth + ", current="
                + (code < 0 ? "none" : FormatCode.name(code) + "@" + start) + "]";
    }
}
