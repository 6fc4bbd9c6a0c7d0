package io.amqpservlet.protocol.codec;

import io.amqpservlet.protocol.text.StringCache;
import io.amqpservlet.protocol.text.Utf8;
import io.amqpservlet.protocol.types.Symbol;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.UUID;

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
public final class AmqpReader {
    // One class on purpose: navigation (next, enter, exit), the getters of the current value and the measuring of
    // each value from its layout all read and write the same per-value fields on the hot path. Kept in one final
    // class, every call between them binds statically and inlines, and no other class sees the fields.

    private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final byte[] EMPTY = new byte[0];
    /** Per format code: the value's width if its layout is fixed, else -1. */
    private static final byte[] FIXED_WIDTH_OR_NEGATIVE = new byte[256];

    static {
        for (int c = 0; c < 256; c++) {
            FIXED_WIDTH_OR_NEGATIVE[c] = FormatCode.layout(c) == FormatCode.LAYOUT_FIXED ? (byte) FormatCode.fixedWidth(c) : -1;
        }
    }

    private byte[] buf;
    // The current value, set by next() and the measuring methods.
    private int code = -1;
    private int start;
    private int valueOffset;
    private int valueEnd;
    private int count;
    private int elementCode;
    private int elementDescriptor = -1;

    private final DecoderLimits limits;
    // The end of the input.
    private int limit;
    // How many compounds are open, and the format code of the innermost one.
    private int depth;
    private int curCode;

    private int pos;
    // The descriptor nextDescribed() or unwrapDescribed() stepped over, for describedBy(Symbol); -1 before any.
    private int steppedDescriptor = -1;

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

    /**
     * A reader that enforces {@code limits}; its nesting stack is sized once from {@link DecoderLimits#maxDepth()}.
     *
     * @param limits the bounds to enforce on what is read
     */
    public AmqpReader(DecoderLimits limits) {
        this.limits = limits;
        this.buf = EMPTY;
        int n = limits.maxDepth();
        stackEnd = new int[n];
        stackRemaining = new int[n];
        stackCode = new int[n];
        stackElementCode = new int[n];
        stackElementDescriptor = new int[n];
    }

    /** {@return the limits this reader enforces} */
    public DecoderLimits limits() {
        return limits;
    }

    /**
     * Starts reading {@code bytes[offset, offset + length)}; offsets in errors and getters are into {@code bytes}.
     *
     * @param bytes the array to read
     * @param offset where the input starts in {@code bytes}
     * @param length how many bytes to read
     * @return this, for chaining
     */
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
     * @param buffer a heap buffer; its remaining bytes are read
     * @throws IllegalArgumentException for a direct or read-only buffer: copy it into an array first
     * @return this, for chaining
     */
    public AmqpReader wrap(ByteBuffer buffer) {
        if (!buffer.hasArray()) {
            throw new IllegalArgumentException("the reader decodes heap buffers; copy a direct buffer first");
        }
        return wrap(buffer.array(), buffer.arrayOffset() + buffer.position(), buffer.remaining());
    }

    /** {@return the buffer being read} */
    public byte[] buffer() {
        return buf;
    }

    /** {@return where the next value starts} */
    public int position() {
        return pos;
    }

    /** {@return the end of the input} */
    public int limit() {
        return limit;
    }

    /** {@return how many compounds are open} */
    public int depth() {
        return depth;
    }

    // ------------------------------------------------------------------------------------------ navigation

    /** {@return whether another value follows: in the open compound, or at top level before the end of the input} */
    public boolean hasNext() {
        return depth > 0 ? curRemaining > 0 : pos < limit;
    }

    /**
     * Moves to the next value and returns its format code ({@link FormatCode#DESCRIBED} for a described value;
     * inside an array, the array's element code).
     *
     * @return the value's format code
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
     * @return the value as an int
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
     *
     * @return the format code, as {@link #next()} returns it ({@link FormatCode#NULL} past the end)
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
     * {@return whether the descriptor stepped over by the last {@link #nextDescribed()}, {@link #unwrapDescribed()} or
     * {@link #enterDescribedList()} is the symbol {@code name} (AMQP 1.0 §1.5: every descriptor has a symbolic
     * form as well as a numeric one)}
     *
     * @param name the symbolic descriptor to compare with
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

    /** {@return the format code of the compound that is open, or -1 at top level} */
    public int containerCode() {
        return depth > 0 ? curCode : -1;
    }

    /** {@return elements of the open compound not yet read by {@link #next()}} */
    public int remaining() {
        return depth > 0 ? curRemaining : 0;
    }

    /**
     * Moves the top-level position to {@code offset} (for example back to a value found by an earlier scan).
     * Only allowed with no compound open.
     *
     * @param offset the new position, an offset in the wrapped array
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

    /**
     * {@return the offset of the open array's element descriptor, or -1 when its elements are not described or no
     * array is open}
     */
    public int enclosingArrayDescriptorOffset() {
        return depth > 0 ? curElementDescriptor : -1;
    }

    /** Skips the current value's remaining elements when inside a compound: an alias of {@link #exit()}. */
    public void skipRest() {
        exit();
    }

    // ------------------------------------------------------------------------------------------ the current value


    /** {@return the current value's format code (see {@link FormatCode})} */
    public int formatCode() {
        return code;
    }

    /** {@return the current value's type, {@link AmqpType#DESCRIBED} for a described value} */
    public AmqpType type() {
        return code == FormatCode.DESCRIBED ? AmqpType.DESCRIBED : code < 0 ? null : FormatCode.type(code);
    }

    /** {@return whether the current value is null} */
    public boolean isNull() {
        return code == FormatCode.NULL;
    }

    /** {@return offset of the current value's first byte: its constructor (for an array element, its payload)} */
    public int valueStart() {
        return start;
    }

    /** {@return offset just after the current value} */
    public int valueEnd() {
        return valueEnd;
    }

    /**
     * {@return offset of the current value's content: the bytes of a binary, string or symbol; the first element of a
     * list, map or array; the described value's constructor for a described value}
     */
    public int valueOffset() {
        return valueOffset;
    }

    /** {@return length of the current value's content (the bytes of a binary, string or symbol)} */
    public int valueLength() {
        return valueEnd - valueOffset;
    }

    /** {@return element count of the current list, map (keys plus values) or array; 2 for a described value} */
    public int count() {
        return count;
    }

    /** {@return the element format code of the current array} */
    public int arrayElementCode() {
        requireArray();
        return elementCode;
    }

    /** {@return whether the current array's elements are described (one descriptor for all of them)} */
    public boolean isDescribedArray() {
        requireArray();
        return elementDescriptor >= 0;
    }

    /** {@return offset of the current array's element descriptor (a complete encoded value), or -1} */
    public int arrayDescriptorOffset() {
        requireArray();
        return elementDescriptor;
    }


    private void requireArray() {
        if (code != FormatCode.ARRAY8 && code != FormatCode.ARRAY32) {
            throw new IllegalStateException("current value is " + FormatCode.name(code) + ", not an array");
        }
    }

    /**
     * {@return the descriptor of the current described value as a number (AMQP 1.0 §1.5 descriptor codes such as
     * 0x10 for open), or -1 when it is not described by an integral value}
     */
    public long descriptorCode() {
        if (code != FormatCode.DESCRIBED) {
            throw new IllegalStateException("current value is " + FormatCode.name(code) + ", not described");
        }
        return integralAt(start + 1);
    }

    /**
     * {@return whether the current described value's descriptor is the symbol {@code name}}
     *
     * @param name the symbolic descriptor to compare with
     */
    public boolean descriptorIs(Symbol name) {
        if (code != FormatCode.DESCRIBED) {
            return false;
        }
        return symbolAt(start + 1, name);
    }

    /** Whether the value whose constructor is at {@code p} (already measured) is the symbol {@code name}. */
    final boolean symbolAt(int p, Symbol name) {
        int c = buf[p] & 0xFF;
        if (c == FormatCode.SYM8) {
            return name.matches(buf, p + 2, buf[p + 1] & 0xFF);
        }
        if (c == FormatCode.SYM32) {
            return name.matches(buf, p + 5, (int) INT.get(buf, p + 1));
        }
        return false;
    }

    /** The value of the integral encoding whose constructor is at {@code p}, or -1 for any other type. */
    final long integralAt(int p) {
        int c = buf[p] & 0xFF;
        int v = p + 1;
        switch (c) {
            case FormatCode.SMALLULONG:
            case FormatCode.SMALLUINT:
            case FormatCode.UBYTE:
                return buf[v] & 0xFF;
            case FormatCode.ULONG:
            case FormatCode.LONG:
                return (long) LONG.get(buf, v);
            case FormatCode.ULONG0:
            case FormatCode.UINT0:
                return 0;
            case FormatCode.UINT:
                return (int) INT.get(buf, v) & 0xFFFFFFFFL;
            case FormatCode.USHORT:
                return (short) SHORT.get(buf, v) & 0xFFFF;
            case FormatCode.SMALLINT:
            case FormatCode.SMALLLONG:
            case FormatCode.BYTE:
                return buf[v];
            case FormatCode.INT:
                return (int) INT.get(buf, v);
            case FormatCode.SHORT:
                return (short) SHORT.get(buf, v);
            default:
                return -1;
        }
    }

    /** {@return the current boolean} */
    public boolean getBoolean() {
        switch (code) {
            case FormatCode.BOOLEAN_TRUE:
                return true;
            case FormatCode.BOOLEAN_FALSE:
                return false;
            case FormatCode.BOOLEAN: {
                byte b = buf[valueOffset];
                if (b == 0) {
                    return false;
                }
                if (b == 1) {
                    return true;
                }
                throw new InvalidEncodingException("boolean byte 0x" + Integer.toHexString(b & 0xFF) + " is neither 0 nor 1", valueOffset);
            }
            default:
                throw unexpected("boolean");
        }
    }

    /**
     * {@return the current boolean, or {@code dflt} if the value is null}
     *
     * @param dflt what a null value reads as
     */
    public boolean getBoolean(boolean dflt) {
        return code == FormatCode.NULL ? dflt : getBoolean();
    }

    /**
     * {@return the current integral value of any AMQP integer type and width, widened to long} A ulong above
     * {@link Long#MAX_VALUE} comes back as its 64 bits (negative): treat it as unsigned.
     */
    public long getLong() {
        int v = valueOffset;
        switch (code) {
            case FormatCode.SMALLUINT:
            case FormatCode.SMALLULONG:
            case FormatCode.UBYTE:
                return buf[v] & 0xFF;
            case FormatCode.UINT0:
            case FormatCode.ULONG0:
                return 0;
            case FormatCode.UINT:
                return (int) INT.get(buf, v) & 0xFFFFFFFFL;
            case FormatCode.ULONG:
            case FormatCode.LONG:
                return (long) LONG.get(buf, v);
            case FormatCode.USHORT:
                return (short) SHORT.get(buf, v) & 0xFFFF;
            case FormatCode.SMALLINT:
            case FormatCode.SMALLLONG:
            case FormatCode.BYTE:
                return buf[v];
            case FormatCode.SHORT:
                return (short) SHORT.get(buf, v);
            case FormatCode.INT:
                return (int) INT.get(buf, v);
            default:
                throw unexpected("an integer");
        }
    }

    /**
     * {@return the current integral value, or {@code dflt} if the value is null}
     *
     * @param dflt what a null value reads as
     */
    public long getLong(long dflt) {
        return code == FormatCode.NULL ? dflt : getLong();
    }

    /**
     * {@return the current integral value as an int} Accepts every integer type; a uint comes back as its 32 bits (an
     * unsigned value in an int, as AMQP's sequence numbers and handles are used). Values outside both the int and
     * uint ranges are an {@link UnexpectedTypeException}.
     */
    public int getInt() {
        int v = valueOffset;
        switch (code) {
            case FormatCode.SMALLUINT:
            case FormatCode.SMALLULONG:
            case FormatCode.UBYTE:
                return buf[v] & 0xFF;
            case FormatCode.UINT0:
            case FormatCode.ULONG0:
                return 0;
            case FormatCode.UINT:
            case FormatCode.INT:
                return (int) INT.get(buf, v);
            case FormatCode.SMALLINT:
            case FormatCode.SMALLLONG:
            case FormatCode.BYTE:
                return buf[v];
            case FormatCode.USHORT:
                return (short) SHORT.get(buf, v) & 0xFFFF;
            case FormatCode.SHORT:
                return (short) SHORT.get(buf, v);
            case FormatCode.ULONG:
            case FormatCode.LONG: {
                long l = (long) LONG.get(buf, v);
                boolean fits = code == FormatCode.ULONG
                        ? l >= 0 && l <= 0xFFFFFFFFL
                        : l >= Integer.MIN_VALUE && l <= 0xFFFFFFFFL;
                if (!fits) {
                    throw new UnexpectedTypeException(FormatCode.name(code) + " " + (code == FormatCode.ULONG
                            ? Long.toUnsignedString(l) : Long.toString(l)) + " does not fit in 32 bits", start);
                }
                return (int) l;
            }
            default:
                throw unexpected("an integer");
        }
    }

    /**
     * {@return the current integral value as an int, or {@code dflt} if the value is null}
     *
     * @param dflt what a null value reads as
     */
    public int getInt(int dflt) {
        return code == FormatCode.NULL ? dflt : getInt();
    }

    /** {@return the current value as an unsigned 32-bit number in a long (uint fields such as handle, delivery-id)} */
    public long getUnsignedInt() {
        return getInt() & 0xFFFFFFFFL;
    }

    /** {@return the current float or double (a double is narrowed); integers are converted} */
    public float getFloat() {
        if (code == FormatCode.FLOAT) {
            return Float.intBitsToFloat((int) INT.get(buf, valueOffset));
        }
        return (float) getDouble();
    }

    /** {@return the current double or float; integers are converted} */
    public double getDouble() {
        switch (code) {
            case FormatCode.DOUBLE:
                return Double.longBitsToDouble((long) LONG.get(buf, valueOffset));
            case FormatCode.FLOAT:
                return Float.intBitsToFloat((int) INT.get(buf, valueOffset));
            default:
                if (type() != null && type().isIntegral()) {
                    return getLong();
                }
                throw unexpected("a float or double");
        }
    }

    /** {@return the current char as a Unicode code point (AMQP chars are UTF-32, so they reach beyond U+FFFF)} */
    public int getChar() {
        if (code != FormatCode.CHAR) {
            throw unexpected("a char");
        }
        int cp = (int) INT.get(buf, valueOffset);
        if (!Character.isValidCodePoint(cp) || (cp >= 0xD800 && cp <= 0xDFFF)) {
            throw new InvalidEncodingException("char 0x" + Integer.toHexString(cp) + " is not a Unicode scalar value", valueOffset);
        }
        return cp;
    }

    /** {@return the current timestamp in milliseconds since the Unix epoch} */
    public long getTimestamp() {
        if (code != FormatCode.TIMESTAMP) {
            throw unexpected("a timestamp");
        }
        return (long) LONG.get(buf, valueOffset);
    }

    /** {@return the most significant 64 bits of the current uuid} */
    public long getUuidMostSignificantBits() {
        if (code != FormatCode.UUID) {
            throw unexpected("a uuid");
        }
        return (long) LONG.get(buf, valueOffset);
    }

    /** {@return the least significant 64 bits of the current uuid} */
    public long getUuidLeastSignificantBits() {
        if (code != FormatCode.UUID) {
            throw unexpected("a uuid");
        }
        return (long) LONG.get(buf, valueOffset + 8);
    }

    /** {@return the current uuid as a {@link UUID} (allocates; prefer the two bit getters on hot paths)} */
    public UUID getUuid() {
        return new UUID(getUuidMostSignificantBits(), getUuidLeastSignificantBits());
    }

    /** {@return the IEEE 754 decimal32 bits of the current value} */
    public int getDecimal32Bits() {
        if (code != FormatCode.DECIMAL32) {
            throw unexpected("a decimal32");
        }
        return (int) INT.get(buf, valueOffset);
    }

    /** {@return the IEEE 754 decimal64 bits of the current value} */
    public long getDecimal64Bits() {
        if (code != FormatCode.DECIMAL64) {
            throw unexpected("a decimal64");
        }
        return (long) LONG.get(buf, valueOffset);
    }

    /** {@return the high 64 bits of the current decimal128} */
    public long getDecimal128High() {
        if (code != FormatCode.DECIMAL128) {
            throw unexpected("a decimal128");
        }
        return (long) LONG.get(buf, valueOffset);
    }

    /** {@return the low 64 bits of the current decimal128} */
    public long getDecimal128Low() {
        if (code != FormatCode.DECIMAL128) {
            throw unexpected("a decimal128");
        }
        return (long) LONG.get(buf, valueOffset + 8);
    }

    /** {@return whether the current value is a string, symbol or binary (its bytes are at {@link #valueOffset()})} */
    public boolean isVariable() {
        byte l = FormatCode.layout(code);
        return l == FormatCode.LAYOUT_VARIABLE8 || l == FormatCode.LAYOUT_VARIABLE32;
    }

    /**
     * {@return the current string or symbol as a String, decoded now (allocates)} Strings are checked to be valid UTF-8
     * and symbols to be ASCII.
     */
    public String getString() {
        switch (code) {
            case FormatCode.STR8:
            case FormatCode.STR32:
                try {
                    return Utf8.decode(buf, valueOffset, valueEnd - valueOffset);
                } catch (IllegalArgumentException e) {
                    throw new InvalidEncodingException(FormatCode.name(code) + " is not valid UTF-8: " + e.getMessage(), valueOffset);
                }
            case FormatCode.SYM8:
            case FormatCode.SYM32:
                checkAscii();
                return new String(buf, valueOffset, valueEnd - valueOffset, java.nio.charset.StandardCharsets.ISO_8859_1);
            default:
                throw unexpected("a string or symbol");
        }
    }

    /** {@return the current string or symbol, or {@code null} if the value is null} */
    public String getStringOrNull() {
        return code == FormatCode.NULL ? null : getString();
    }

    /**
     * {@return the current string or symbol as the shared instance from {@code cache} when its bytes are cached (no
     * allocation), else decoded as {@link #getString()} does} A hit needs no UTF-8 check: the cached key is the
     * valid encoding of that String. Symbols are still checked to be ASCII.
     *
     * @param cache the shared Strings to look the bytes up in
     */
    public String getString(StringCache cache) {
        int length = valueEnd - valueOffset;
        switch (code) {
            case FormatCode.STR8:
            case FormatCode.STR32: {
                String cached = cache.lookup(buf, valueOffset, length);
                return cached != null ? cached : getString();
            }
            case FormatCode.SYM8:
            case FormatCode.SYM32: {
                checkAscii();
                String cached = cache.lookup(buf, valueOffset, length);
                return cached != null ? cached
                        : new String(buf, valueOffset, length, java.nio.charset.StandardCharsets.ISO_8859_1);
            }
            default:
                throw unexpected("a string or symbol");
        }
    }

    /**
     * {@return {@link #getString(StringCache)}, or {@code null} if the value is null}
     *
     * @param cache the shared Strings to look the bytes up in
     */
    public String getStringOrNull(StringCache cache) {
        return code == FormatCode.NULL ? null : getString(cache);
    }

    /** Checks that the current string is valid UTF-8 or the current symbol ASCII, without decoding it. */
    public void validateText() {
        switch (code) {
            case FormatCode.STR8:
            case FormatCode.STR32: {
                int bad = Utf8.firstInvalid(buf, valueOffset, valueEnd - valueOffset);
                if (bad >= 0) {
                    throw new InvalidEncodingException(FormatCode.name(code) + " is not valid UTF-8", bad);
                }
                return;
            }
            case FormatCode.SYM8:
            case FormatCode.SYM32:
                checkAscii();
                return;
            default:
                throw unexpected("a string or symbol");
        }
    }

    private void checkAscii() {
        int bad = Utf8.skipAscii(buf, valueOffset, valueEnd);
        if (bad < valueEnd) {
            throw new InvalidEncodingException("symbol byte 0x" + Integer.toHexString(buf[bad] & 0xFF) + " is not ASCII", bad);
        }
    }

    /**
     * {@return whether the current symbol, string or binary holds exactly {@code symbol}'s bytes}
     *
     * @param symbol the symbol to compare with
     */
    public boolean contentEquals(Symbol symbol) {
        return isVariable() && symbol.matches(buf, valueOffset, valueEnd - valueOffset);
    }

    /**
     * {@return whether the current symbol, string or binary holds exactly {@code bytes}}
     *
     * @param bytes the bytes to compare with
     */
    public boolean contentEquals(byte[] bytes) {
        return isVariable() && java.util.Arrays.equals(bytes, 0, bytes.length, buf, valueOffset, valueEnd);
    }

    /**
     * Copies the content bytes of the current binary, string or symbol into {@code dst}; returns their count.
     *
     * @param dst where to copy the bytes
     * @param dstOffset where in {@code dst} the first byte goes
     * @return the number of bytes copied
     */
    public int copyBytes(byte[] dst, int dstOffset) {
        if (!isVariable()) {
            throw unexpected("a binary, string or symbol");
        }
        int n = valueEnd - valueOffset;
        System.arraycopy(buf, valueOffset, dst, dstOffset, n);
        return n;
    }

    /** {@return the content bytes of the current binary, string or symbol as a new array (allocates)} */
    public byte[] getBytes() {
        if (!isVariable()) {
            throw unexpected("a binary, string or symbol");
        }
        return java.util.Arrays.copyOfRange(buf, valueOffset, valueEnd);
    }

    private UnexpectedTypeException unexpected(String wanted) {
        return new UnexpectedTypeException("expected " + wanted + " but found " + FormatCode.name(code), start);
    }

    // ------------------------------------------------------------------------------------------ measuring values


    private void readDescribed(int p, int bound) {
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
    private void readPayload(int c, int p, int bound, boolean inArray) {
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

    private void readOtherPayload(byte layout, int c, int p, int bound, boolean inArray) {
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

    private static InvalidEncodingException invalidCode(int c, int p, boolean inArray) {
        return new InvalidEncodingException("invalid format code 0x" + Integer.toHexString(c)
                + (inArray ? " as array element constructor" : ""), inArray ? p : p - 1);
    }

    private void compound(int c, int p, long size, long n, int width, int bound) {
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

    private void array(int c, int p, long size, long n, int width, int bound) {
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

    private void checkEnd(long end, int bound, int c) {
        if (end > bound) {
            // Kept out of line so that this check stays small enough to inline on every value.
            throw overrun(end, bound, c);
        }
    }

    private DecodeException overrun(long end, int bound, int c) {
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
    private int endOf(int p, int bound, int chain, boolean atInputEnd) {
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

    private void throwEnd(long end, int bound, String what, boolean atInputEnd) {
        if (atInputEnd) {
            throw new TruncatedEncodingException(what + " runs to offset " + end + " past the end of input at "
                    + limit, start);
        }
        throw new InvalidEncodingException(what + " runs to offset " + end + " past the end of its enclosing value at "
                + bound, start);
    }

    @Override
    public String toString() {
        return "AmqpReader[pos=" + pos + ", limit=" + limit + ", depth=" + depth + ", current="
                + (code < 0 ? "none" : FormatCode.name(code) + "@" + start) + "]";
    }
}
