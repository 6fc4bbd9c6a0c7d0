package io.amqpservlet.protocol.codec;

import io.amqpservlet.protocol.text.Utf8;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.Utf8String;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.UUID;

/**
 * An AMQP 1.0 encoder that writes straight into a byte array: its own growable one, or a caller's fixed one
 * ({@link #wrap(byte[], int, int)}). Scalars take the smallest legal encoding (smallint, uint0, str8, ...).
 * Lists, maps and arrays are written in one pass: {@code start} reserves the short (8-bit) size and count fields,
 * elements are counted as they are written, and {@code end} backfills the fields, widening to the 32-bit form
 * in place only when the content needs it. Sizes are never computed ahead.
 *
 * <p>Nothing is allocated in steady state: the nesting stack grows only the first time a deeper structure is
 * written, and the own buffer only the first time a larger value is.
 *
 * <pre>{@code
 * writer.startList();
 * for (int i = 0; i < 10; i++) {
 *     writer.writeInt(i * 1000);
 * }
 * writer.writeUuid(msb, lsb);
 * writer.endList();              // list8, size and count backfilled
 * }</pre>
 *
 * <p>Array elements take no constructor of their own: open an array with the element format code
 * ({@link #startArray(int)}) and write its elements with the ordinary methods; each must fit that code. A writer
 * is not thread-safe.
 */
public final class AmqpWriter {
    // One class on purpose: the typed writes and the structure they go into (the buffer, the open compounds and
    // their backfilled size and count fields) share the same fields on every write; in one final class the calls
    // between them bind statically and inline, and no other class sees the fields.

    private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private byte[] buf;
    private int base;
    private int pos;
    private int end;
    private boolean growable;

    // Open compounds: where each starts, how many elements it has, its format code, and for arrays the element code.
    private int depth;
    private int[] openStart = new int[8];
    private int[] openCount = new int[8];
    // The innermost open compound's element count and array element code (0: not an array, or top level), in
    // fields so that every write touches no array; openCount/openElement keep the outer levels' values.
    private int curCount;
    private int curElement;
    private int[] openCode = new int[8];
    private int[] openElement = new int[8];
    // Values still to come at depth uncountedDepth that belong to a described value already counted as one element:
    // the value after a descriptor (1), or the descriptor and the value after startDescribed() (2).
    private int uncounted;
    private int uncountedDepth;
    // The uncounted values of the enclosing level, set aside while a compound inside it is open (for example a
    // list that is a descriptor, holding described values of its own), and restored when that compound ends.
    private int[] openUncounted = new int[8];

    /** A writer with its own buffer of 256 bytes, grown as needed. */
    public AmqpWriter() {
        this(256);
    }

    /**
     * A writer with its own buffer of {@code initialCapacity} bytes, grown as needed.
     *
     * @param initialCapacity the own buffer's first size in bytes (at least 16)
     */
    public AmqpWriter(int initialCapacity) {
        this.buf = new byte[Math.max(16, initialCapacity)];
        this.end = buf.length;
        this.growable = true;
    }

    /**
     * Writes from the start of the own buffer again.
     *
     * @return this, for chaining
     */
    public AmqpWriter clear() {
        if (!growable) {
            throw new IllegalStateException("writing into a caller's array; call wrap again");
        }
        pos = base = 0;
        depth = 0;
        curCount = 0;
        curElement = 0;
        uncounted = 0;
        return this;
    }

    /**
     * Writes into {@code target[offset, offset + length)}; a value that does not fit throws
     * {@link BufferOverflowException}. Returns to the own buffer with {@link #unwrap()}.
     *
     * @param target the array to write into
     * @param offset where in {@code target} the first byte goes
     * @param length how many bytes of {@code target} may be written
     * @return this, for chaining
     */
    public AmqpWriter wrap(byte[] target, int offset, int length) {
        if (offset < 0 || length < 0 || offset + length > target.length) {
            throw new IndexOutOfBoundsException("offset " + offset + " length " + length + " of " + target.length);
        }
        buf = target;
        base = pos = offset;
        end = offset + length;
        growable = false;
        depth = 0;
        curCount = 0;
        curElement = 0;
        uncounted = 0;
        return this;
    }

    /**
     * Writes into the remaining space of a heap buffer; call {@link #finishInto(ByteBuffer)} to advance its
     * position by what was written.
     *
     * @param target a writable heap buffer; writing starts at its position
     * @return this, for chaining
     */
    public AmqpWriter wrap(ByteBuffer target) {
        if (!target.hasArray() || target.isReadOnly()) {
            throw new IllegalArgumentException("wrap a writable heap buffer, or encode and copyTo a direct one");
        }
        return wrap(target.array(), target.arrayOffset() + target.position(), target.remaining());
    }

    /**
     * Advances {@code target}'s position past the bytes written since {@link #wrap(ByteBuffer)}.
     *
     * @param target the buffer given to {@link #wrap(ByteBuffer)}
     */
    public void finishInto(ByteBuffer target) {
        target.position(target.position() + (pos - base));
    }

    /**
     * Returns to a growable buffer of the writer's own (a new one; call once, not per message).
     *
     * @return this, for chaining
     */
    public AmqpWriter unwrap() {
        buf = new byte[256];
        base = pos = 0;
        end = buf.length;
        growable = true;
        depth = 0;
        curCount = 0;
        curElement = 0;
        return this;
    }

    /** {@return the array written into} */
    public byte[] array() {
        return buf;
    }

    /** {@return offset in {@link #array()} of the first byte written since the last clear or wrap} */
    public int start() {
        return base;
    }

    /** {@return offset in {@link #array()} where the next byte goes} */
    public int position() {
        return pos;
    }

    /** {@return bytes written since the last clear or wrap} */
    public int length() {
        return pos - base;
    }

    /**
     * Copies what was written into {@code dst} and advances its position.
     *
     * @param dst the buffer to copy into
     */
    public void copyTo(ByteBuffer dst) {
        dst.put(buf, base, pos - base);
    }

    /** {@return a copy of what was written (allocates; for tests and tools)} */
    public byte[] toByteArray() {
        return Arrays.copyOfRange(buf, base, pos);
    }

    /**
     * Moves the write position back to {@code position} (an earlier {@link #position()}), discarding what came
     * after. Only with no compound open since then.
     *
     * @param position an earlier {@link #position()}
     */
    public void truncate(int position) {
        if (position < base || position > pos) {
            throw new IndexOutOfBoundsException("position " + position + " outside [" + base + ", " + pos + "]");
        }
        pos = position;
    }

    /** {@return how many compounds are open} */
    public int depth() {
        return depth;
    }

    // ------------------------------------------------------------------------------------------ buffer

    private void ensure(int n) {
        if (pos + n > end) {
            grow(n);
        }
    }

    private void grow(int n) {
        if (!growable) {
            throw new BufferOverflowException();
        }
        long need = (long) pos + n;
        if (need > Integer.MAX_VALUE - 16) {
            throw new BufferOverflowException();
        }
        int size = (int) Math.min(Integer.MAX_VALUE - 16, Math.max(need, (long) buf.length * 2));
        buf = Arrays.copyOf(buf, size);
        end = size;
    }

    /**
     * Makes room for {@code n} more bytes and returns the offset to write them at (for callers filling a payload).
     *
     * @param n how many bytes to reserve
     * @return the offset of the {@code n} reserved bytes
     */
    public int reserve(int n) {
        ensure(n);
        int at = pos;
        pos += n;
        return at;
    }

    // ------------------------------------------------------------------------------------------ element bookkeeping

    /**
     * Counts one element in the open compound and returns the open array's element code, or 0 when the value
     * needs its own constructor.
     */
    private int element() {
        if (uncounted > 0 && depth == uncountedDepth) {
            uncounted--;
            return 0;
        }
        curCount++;
        return curElement;
    }

    /** The closing compound's element count; restores the enclosing level's count and element code. */
    private int popCount(int closingLevel) {
        int n = curCount;
        curCount = closingLevel > 0 ? openCount[closingLevel - 1] : 0;
        curElement = closingLevel > 0 ? openElement[closingLevel - 1] : 0;
        return n;
    }

    IllegalArgumentException notElement(String what, int elementCode) {
        return new IllegalArgumentException(what + " cannot be an element of an array of " + FormatCode.name(elementCode));
    }

    // ------------------------------------------------------------------------------------------ described

    /**
     * Writes the descriptor of a described value with a numeric descriptor code; the next value written is described.
     *
     * @param code the numeric descriptor (AMQP 1.0 §1.5)
     */
    public void writeDescriptor(long code) {
        beginDescribed(1);
        putULong(code);
    }

    /**
     * Writes the descriptor of a described value with a symbolic descriptor; the next value written is described.
     *
     * @param name the symbolic descriptor
     */
    public void writeDescriptor(Symbol name) {
        beginDescribed(1);
        putSymbol(name.bytes());
    }

    /**
     * Starts a described value whose descriptor is neither a ulong nor a symbol: the next value written is the
     * descriptor, and the one after it the described value.
     */
    public void startDescribed() {
        beginDescribed(2);
    }

    private void beginDescribed(int values) {
        int ec = element();
        if (ec != 0) {
            throw notElement("a described value", ec);
        }
        ensure(1);
        buf[pos++] = FormatCode.DESCRIBED;
        // A described descriptor (startDescribed() then writeDescriptor) adds its own value to those still due.
        uncounted = (uncounted > 0 && uncountedDepth == depth ? uncounted : 0) + values;
        uncountedDepth = depth;
    }

    /** A ulong with its constructor, outside element bookkeeping (descriptors). */
    private void putULong(long value) {
        ensure(9);
        if ((value & 0xFFFFFFFFFFFFFF00L) == 0) {
            buf[pos] = (byte) FormatCode.SMALLULONG;
            buf[pos + 1] = (byte) value;
            pos += 2;
        } else {
            buf[pos] = (byte) FormatCode.ULONG;
            LONG.set(buf, pos + 1, value);
            pos += 9;
        }
    }

    /** A symbol with its constructor, outside element bookkeeping (descriptors). */
    private void putSymbol(byte[] ascii) {
        int n = ascii.length;
        ensure(5 + n);
        if (n <= 255) {
            buf[pos] = (byte) FormatCode.SYM8;
            buf[pos + 1] = (byte) n;
            pos += 2;
        } else {
            buf[pos] = (byte) FormatCode.SYM32;
            INT.set(buf, pos + 1, n);
            pos += 5;
        }
        System.arraycopy(ascii, 0, buf, pos, n);
        pos += n;
    }

    // ------------------------------------------------------------------------------------------ compounds

    private void open(int code, int element) {
        if (depth == openStart.length) {
            int n = depth * 2;
            openStart = Arrays.copyOf(openStart, n);
            openCount = Arrays.copyOf(openCount, n);
            openCode = Arrays.copyOf(openCode, n);
            openElement = Arrays.copyOf(openElement, n);
            openUncounted = Arrays.copyOf(openUncounted, n);
        }
        openUncounted[depth] = uncounted > 0 && uncountedDepth == depth ? uncounted : 0;
        uncounted = 0;
        if (depth > 0) {
            openCount[depth - 1] = curCount;
        }
        openStart[depth] = pos;
        openCount[depth] = 0;
        openCode[depth] = code;
        openElement[depth] = element;
        curCount = 0;
        curElement = element;
        depth++;
    }

    private int close(int expect, String what) {
        if (depth == 0 || (openCode[depth - 1] != expect)) {
            throw new IllegalStateException("no " + what + " is open");
        }
        if (uncounted > 0 && uncountedDepth == depth) {
            throw new IllegalStateException("a descriptor was written without the value it describes");
        }
        return restoreUncounted(--depth);
    }

    /** Back at level {@code d} after its compound ended: the values due there before it opened are due again. */
    private int restoreUncounted(int d) {
        uncounted = openUncounted[d];
        uncountedDepth = d;
        return d;
    }

    /** Starts a list; elements follow; {@link #endList()} backfills size and count. */
    public void startList() {
        int ec = compoundElement(FormatCode.LIST8, FormatCode.LIST32, "list");
        if (ec == 0) {
            ensure(3);
            buf[pos] = (byte) FormatCode.LIST8;
            open(FormatCode.LIST8, 0);
            pos += 3;
        } else {
            open(FormatCode.LIST8, 0);
            openCode[depth - 1] = ec == FormatCode.LIST8 ? -FormatCode.LIST8 : -FormatCode.LIST32;
            int w = ec == FormatCode.LIST8 ? 2 : 8;
            ensure(w);
            pos += w;
        }
    }

    /** Ends the innermost list: list0 if empty, list8 if it fits, else widened in place to list32. */
    public void endList() {
        int d = depth - 1;
        // The common case, kept small enough to inline: a non-empty list opened by startList() (not an array
        // element) whose size and count fit list8. Everything else, and every error, takes endCompound.
        if (d >= 0 && openCode[d] == FormatCode.LIST8 && !(uncounted > 0 && uncountedDepth == depth)) {
            int s = openStart[d];
            int n = curCount;
            int size = pos - s - 2; // the count byte and the elements
            if (n > 0 && n <= 255 && size <= 255) {
                restoreUncounted(d);
                depth = d;
                popCount(d);
                buf[s + 1] = (byte) size;
                buf[s + 2] = (byte) n;
                return;
            }
        }
        endCompound(FormatCode.LIST8, FormatCode.LIST32, FormatCode.LIST0, "list");
    }

    /** Starts a map; keys and values follow alternately; {@link #endMap()} backfills size and count. */
    public void startMap() {
        int ec = compoundElement(FormatCode.MAP8, FormatCode.MAP32, "map");
        if (ec == 0) {
            ensure(3);
            buf[pos] = (byte) FormatCode.MAP8;
            open(FormatCode.MAP8, 0);
            pos += 3;
        } else {
            open(FormatCode.MAP8, 0);
            openCode[depth - 1] = ec == FormatCode.MAP8 ? -FormatCode.MAP8 : -FormatCode.MAP32;
            int w = ec == FormatCode.MAP8 ? 2 : 8;
            ensure(w);
            pos += w;
        }
    }

    /** Ends the innermost map: map8 if it fits, else widened in place to map32. */
    public void endMap() {
        int d = depth - 1;
        if (d >= 0 && (curCount & 1) != 0) {
            throw new IllegalStateException("map has a key without a value");
        }
        endCompound(FormatCode.MAP8, FormatCode.MAP32, -1, "map");
    }

    private int compoundElement(int code8, int code32, String what) {
        int ec = element();
        if (ec != 0 && ec != code8 && ec != code32) {
            throw notElement(what, ec);
        }
        return ec;
    }

    private void endCompound(int code8, int code32, int code0, String what) {
        if (depth == 0) {
            throw new IllegalStateException("no " + what + " is open");
        }
        int oc = openCode[depth - 1];
        if (oc < 0) {
            // An element of an array: its width was fixed by the array's element code.
            if (-oc != code8 && -oc != code32) {
                throw new IllegalStateException("no " + what + " is open");
            }
            int d = restoreUncounted(--depth);
            int s = openStart[d];
            int n = popCount(d);
            if (-oc == code8) {
                int size = pos - s - 1;
                if (size > 255 || n > 255) {
                    throw new IllegalArgumentException(what + " of " + size + " bytes does not fit an array of " + FormatCode.name(code8));
                }
                buf[s] = (byte) size;
                buf[s + 1] = (byte) n;
            } else {
                INT.set(buf, s, pos - s - 4);
                INT.set(buf, s + 4, n);
            }
            return;
        }
        int d = close(code8, what);
        int s = openStart[d];
        int n = popCount(d);
        int contentStart = s + 3;
        int content = pos - contentStart;
        if (n == 0 && code0 >= 0) {
            buf[s] = (byte) code0;
            pos = s + 1;
        } else if (content + 1 <= 255 && n <= 255) {
            buf[s + 1] = (byte) (content + 1);
            buf[s + 2] = (byte) n;
        } else {
            // Widen in place: move the content up by the 6 extra bytes that 32-bit size and count take.
            ensure(6);
            System.arraycopy(buf, contentStart, buf, contentStart + 6, content);
            buf[s] = (byte) code32;
            INT.set(buf, s + 1, content + 4);
            INT.set(buf, s + 5, n);
            pos += 6;
        }
    }

    /**
     * Starts an array whose elements all have the format code {@code elementCode} (see {@link FormatCode}).
     *
     * @param elementCode the format code every element is written with
     */
    public void startArray(int elementCode) {
        startArray(elementCode, false, 0, null);
    }

    /**
     * Starts an array of values described by the numeric descriptor {@code descriptor}.
     *
     * @param descriptor the numeric descriptor of every element
     * @param elementCode the format code every element is written with
     */
    public void startDescribedArray(long descriptor, int elementCode) {
        startArray(elementCode, true, descriptor, null);
    }

    /**
     * Starts an array of values described by the symbolic descriptor {@code descriptor}.
     *
     * @param descriptor the symbolic descriptor of every element
     * @param elementCode the format code every element is written with
     */
    public void startDescribedArray(Symbol descriptor, int elementCode) {
        startArray(elementCode, true, 0, descriptor);
    }

    // A ulong descriptor uses all 64 bits (codes above Long.MAX_VALUE are negative), so whether there is one
    // cannot be told from its value.
    private void startArray(int elementCode, boolean described, long numericDescriptor, Symbol symbolDescriptor) {
        if (!FormatCode.isValid(elementCode)) {
            throw new IllegalArgumentException("invalid element format code 0x" + Integer.toHexString(elementCode));
        }
        if (elementCode == FormatCode.LIST0) {
            throw new IllegalArgumentException("list0 cannot be an array element code; use list8 or list32");
        }
        int ec = element();
        boolean nested = ec != 0;
        if (nested && ec != FormatCode.ARRAY8 && ec != FormatCode.ARRAY32) {
            throw notElement("array", ec);
        }
        int s = pos;
        if (nested) {
            ensure(ec == FormatCode.ARRAY8 ? 2 : 8);
            pos += ec == FormatCode.ARRAY8 ? 2 : 8;
        } else {
            ensure(3);
            buf[pos] = (byte) FormatCode.ARRAY8;
            pos += 3;
        }
        // The element constructor, written once for all elements.
        if (described) {
            ensure(1);
            buf[pos++] = FormatCode.DESCRIBED;
            if (symbolDescriptor != null) {
                putSymbol(symbolDescriptor.bytes());
            } else {
                putULong(numericDescriptor);
            }
        }
        ensure(1);
        buf[pos++] = (byte) elementCode;
        open(nested ? -ec : FormatCode.ARRAY8, elementCode);
        openStart[depth - 1] = s;
    }

    /** Ends the innermost array: array8 if it fits, else widened in place to array32. */
    public void endArray() {
        if (depth == 0) {
            throw new IllegalStateException("no array is open");
        }
        int d = depth - 1;
        int oc = openCode[d];
        if (oc != FormatCode.ARRAY8 && oc != -FormatCode.ARRAY8 && oc != -FormatCode.ARRAY32) {
            throw new IllegalStateException("no array is open");
        }
        restoreUncounted(--depth);
        int s = openStart[d];
        int n = popCount(d);
        if (oc == -FormatCode.ARRAY8) {
            int size = pos - s - 1;
            if (size > 255 || n > 255) {
                throw new IllegalArgumentException("array of " + size + " bytes does not fit an array of array8");
            }
            buf[s] = (byte) size;
            buf[s + 1] = (byte) n;
            return;
        }
        if (oc == -FormatCode.ARRAY32) {
            INT.set(buf, s, pos - s - 4);
            INT.set(buf, s + 4, n);
            return;
        }
        int contentStart = s + 3;
        int content = pos - contentStart; // element constructor and elements
        if (content + 1 <= 255 && n <= 255) {
            buf[s + 1] = (byte) (content + 1);
            buf[s + 2] = (byte) n;
        } else {
            ensure(6);
            System.arraycopy(buf, contentStart, buf, contentStart + 6, content);
            buf[s] = (byte) FormatCode.ARRAY32;
            INT.set(buf, s + 1, content + 4);
            INT.set(buf, s + 5, n);
            pos += 6;
        }
    }

    // ------------------------------------------------------------------------------------------ scalars

    /** Writes null. */
    public void writeNull() {
        int ec = element();
        if (ec != 0) {
            if (ec != FormatCode.NULL) {
                throw notElement("null", ec);
            }
            return;
        }
        ensure(1);
        buf[pos++] = (byte) FormatCode.NULL;
    }

    /**
     * Writes a boolean as true/false (one byte); in an array of {@code boolean}, as a 0/1 byte.
     *
     * @param value the value to write
     */
    public void writeBoolean(boolean value) {
        int ec = element();
        ensure(1);
        if (ec == 0) {
            buf[pos++] = (byte) (value ? FormatCode.BOOLEAN_TRUE : FormatCode.BOOLEAN_FALSE);
        } else if (ec == FormatCode.BOOLEAN) {
            buf[pos++] = (byte) (value ? 1 : 0);
        } else if (ec != (value ? FormatCode.BOOLEAN_TRUE : FormatCode.BOOLEAN_FALSE)) {
            throw notElement("boolean " + value, ec);
        }
    }

    /**
     * Writes a ubyte from the low 8 bits of {@code value}.
     *
     * @param value the value to write
     */
    public void writeUByte(int value) {
        int ec = element();
        if (ec == 0) {
            ensure(2);
            buf[pos] = (byte) FormatCode.UBYTE;
            buf[pos + 1] = (byte) value;
            pos += 2;
        } else if (ec == FormatCode.UBYTE) {
            ensure(1);
            buf[pos++] = (byte) value;
        } else {
            throw notElement("ubyte", ec);
        }
    }

    /**
     * Writes a ushort from the low 16 bits of {@code value}.
     *
     * @param value the value to write
     */
    public void writeUShort(int value) {
        int ec = element();
        if (ec == 0) {
            ensure(3);
            buf[pos] = (byte) FormatCode.USHORT;
            SHORT.set(buf, pos + 1, (short) value);
            pos += 3;
        } else if (ec == FormatCode.USHORT) {
            ensure(2);
            SHORT.set(buf, pos, (short) value);
            pos += 2;
        } else {
            throw notElement("ushort", ec);
        }
    }

    /**
     * Writes a uint from the 32 bits of {@code value} (read as unsigned): uint0, smalluint or uint.
     *
     * @param value the value to write
     */
    public void writeUInt(int value) {
        int ec = element();
        if (ec == 0) {
            ensure(5);
            if (value == 0) {
                buf[pos++] = (byte) FormatCode.UINT0;
            } else if ((value & 0xFFFFFF00) == 0) {
                buf[pos] = (byte) FormatCode.SMALLUINT;
                buf[pos + 1] = (byte) value;
                pos += 2;
            } else {
                buf[pos] = (byte) FormatCode.UINT;
                INT.set(buf, pos + 1, value);
                pos += 5;
            }
        } else {
            arrayUInt(ec, value);
        }
    }

    private void arrayUInt(int ec, int value) {
        switch (ec) {
            case FormatCode.UINT:
                ensure(4);
                INT.set(buf, pos, value);
                pos += 4;
                return;
            case FormatCode.SMALLUINT:
                if ((value & 0xFFFFFF00) != 0) {
                    throw notElement("uint " + Integer.toUnsignedString(value), ec);
                }
                ensure(1);
                buf[pos++] = (byte) value;
                return;
            case FormatCode.UINT0:
                if (value != 0) {
                    throw notElement("uint " + Integer.toUnsignedString(value), ec);
                }
                return;
            default:
                throw notElement("uint", ec);
        }
    }

    /**
     * Writes a uint; {@code value} must be in [0, 2^32).
     *
     * @param value the value to write
     */
    public void writeUInt(long value) {
        if ((value & 0xFFFFFFFF00000000L) != 0) {
            throw new IllegalArgumentException("uint out of range: " + value);
        }
        writeUInt((int) value);
    }

    /**
     * Writes a ulong from the 64 bits of {@code value} (read as unsigned): ulong0, smallulong or ulong.
     *
     * @param value the value to write
     */
    public void writeULong(long value) {
        int ec = element();
        if (ec == 0) {
            ensure(9);
            if (value == 0) {
                buf[pos++] = (byte) FormatCode.ULONG0;
            } else if ((value & 0xFFFFFFFFFFFFFF00L) == 0) {
                buf[pos] = (byte) FormatCode.SMALLULONG;
                buf[pos + 1] = (byte) value;
                pos += 2;
            } else {
                buf[pos] = (byte) FormatCode.ULONG;
                LONG.set(buf, pos + 1, value);
                pos += 9;
            }
            return;
        }
        switch (ec) {
            case FormatCode.ULONG:
                ensure(8);
                LONG.set(buf, pos, value);
                pos += 8;
                return;
            case FormatCode.SMALLULONG:
                if ((value & 0xFFFFFFFFFFFFFF00L) != 0) {
                    throw notElement("ulong " + Long.toUnsignedString(value), ec);
                }
                ensure(1);
                buf[pos++] = (byte) value;
                return;
            case FormatCode.ULONG0:
                if (value != 0) {
                    throw notElement("ulong " + Long.toUnsignedString(value), ec);
                }
                return;
            default:
                throw notElement("ulong", ec);
        }
    }

    /**
     * Writes a byte.
     *
     * @param value the value to write
     */
    public void writeByte(byte value) {
        int ec = element();
        if (ec == 0) {
            ensure(2);
            buf[pos] = (byte) FormatCode.BYTE;
            buf[pos + 1] = value;
            pos += 2;
        } else if (ec == FormatCode.BYTE) {
            ensure(1);
            buf[pos++] = value;
        } else {
            throw notElement("byte", ec);
        }
    }

    /**
     * Writes a short.
     *
     * @param value the value to write
     */
    public void writeShort(short value) {
        int ec = element();
        if (ec == 0) {
            ensure(3);
            buf[pos] = (byte) FormatCode.SHORT;
            SHORT.set(buf, pos + 1, value);
            pos += 3;
        } else if (ec == FormatCode.SHORT) {
            ensure(2);
            SHORT.set(buf, pos, value);
            pos += 2;
        } else {
            throw notElement("short", ec);
        }
    }

    /**
     * Writes an int: smallint when it fits in a byte, else int.
     *
     * @param value the value to write
     */
    public void writeInt(int value) {
        int ec = element();
        if (ec == 0) {
            ensure(5);
            if (value == (byte) value) {
                buf[pos] = (byte) FormatCode.SMALLINT;
                buf[pos + 1] = (byte) value;
                pos += 2;
            } else {
                buf[pos] = (byte) FormatCode.INT;
                INT.set(buf, pos + 1, value);
                pos += 5;
            }
        } else if (ec == FormatCode.INT) {
            ensure(4);
            INT.set(buf, pos, value);
            pos += 4;
        } else if (ec == FormatCode.SMALLINT && value == (byte) value) {
            ensure(1);
            buf[pos++] = (byte) value;
        } else {
            throw notElement("int " + value, ec);
        }
    }

    /**
     * Writes a long: smalllong when it fits in a byte, else long.
     *
     * @param value the value to write
     */
    public void writeLong(long value) {
        int ec = element();
        if (ec == 0) {
            ensure(9);
            if (value == (byte) value) {
                buf[pos] = (byte) FormatCode.SMALLLONG;
                buf[pos + 1] = (byte) value;
                pos += 2;
            } else {
                buf[pos] = (byte) FormatCode.LONG;
                LONG.set(buf, pos + 1, value);
                pos += 9;
            }
        } else if (ec == FormatCode.LONG) {
            ensure(8);
            LONG.set(buf, pos, value);
            pos += 8;
        } else if (ec == FormatCode.SMALLLONG && value == (byte) value) {
            ensure(1);
            buf[pos++] = (byte) value;
        } else {
            throw notElement("long " + value, ec);
        }
    }

    private void fixed32(int code, int bits, String what) {
        int ec = element();
        if (ec == 0) {
            ensure(5);
            buf[pos] = (byte) code;
            INT.set(buf, pos + 1, bits);
            pos += 5;
        } else if (ec == code) {
            ensure(4);
            INT.set(buf, pos, bits);
            pos += 4;
        } else {
            throw notElement(what, ec);
        }
    }

    private void fixed64(int code, long bits, String what) {
        int ec = element();
        if (ec == 0) {
            ensure(9);
            buf[pos] = (byte) code;
            LONG.set(buf, pos + 1, bits);
            pos += 9;
        } else if (ec == code) {
            ensure(8);
            LONG.set(buf, pos, bits);
            pos += 8;
        } else {
            throw notElement(what, ec);
        }
    }

    private void fixed128(int code, long high, long low, String what) {
        int ec = element();
        if (ec == 0) {
            ensure(17);
            buf[pos] = (byte) code;
            LONG.set(buf, pos + 1, high);
            LONG.set(buf, pos + 9, low);
            pos += 17;
        } else if (ec == code) {
            ensure(16);
            LONG.set(buf, pos, high);
            LONG.set(buf, pos + 8, low);
            pos += 16;
        } else {
            throw notElement(what, ec);
        }
    }

    /**
     * Writes a float (IEEE 754 binary32).
     *
     * @param value the value to write
     */
    public void writeFloat(float value) {
        fixed32(FormatCode.FLOAT, Float.floatToRawIntBits(value), "float");
    }

    /**
     * Writes a double (IEEE 754 binary64).
     *
     * @param value the value to write
     */
    public void writeDouble(double value) {
        fixed64(FormatCode.DOUBLE, Double.doubleToRawLongBits(value), "double");
    }

    /**
     * Writes a decimal32 from its IEEE 754 bits.
     *
     * @param bits the IEEE 754 decimal32 bits
     */
    public void writeDecimal32(int bits) {
        fixed32(FormatCode.DECIMAL32, bits, "decimal32");
    }

    /**
     * Writes a decimal64 from its IEEE 754 bits.
     *
     * @param bits the IEEE 754 decimal64 bits
     */
    public void writeDecimal64(long bits) {
        fixed64(FormatCode.DECIMAL64, bits, "decimal64");
    }

    /**
     * Writes a decimal128 from its IEEE 754 bits.
     *
     * @param high the high 64 bits of the IEEE 754 decimal128
     * @param low its low 64 bits
     */
    public void writeDecimal128(long high, long low) {
        fixed128(FormatCode.DECIMAL128, high, low, "decimal128");
    }

    /**
     * Writes a char (UTF-32) from a Unicode code point, which may be above U+FFFF.
     *
     * @param codePoint the Unicode code point
     */
    public void writeChar(int codePoint) {
        if (!Character.isValidCodePoint(codePoint) || (codePoint >= 0xD800 && codePoint <= 0xDFFF)) {
            throw new IllegalArgumentException("not a Unicode scalar value: 0x" + Integer.toHexString(codePoint));
        }
        fixed32(FormatCode.CHAR, codePoint, "char");
    }

    /**
     * Writes a timestamp in milliseconds since the Unix epoch.
     *
     * @param epochMillis milliseconds since the Unix epoch
     */
    public void writeTimestamp(long epochMillis) {
        fixed64(FormatCode.TIMESTAMP, epochMillis, "timestamp");
    }

    /**
     * Writes a uuid from its two halves.
     *
     * @param mostSignificantBits the uuid's most significant 64 bits
     * @param leastSignificantBits its least significant 64 bits
     */
    public void writeUuid(long mostSignificantBits, long leastSignificantBits) {
        fixed128(FormatCode.UUID, mostSignificantBits, leastSignificantBits, "uuid");
    }

    /**
     * Writes a uuid.
     *
     * @param value the value to write
     */
    public void writeUuid(UUID value) {
        writeUuid(value.getMostSignificantBits(), value.getLeastSignificantBits());
    }

    // ------------------------------------------------------------------------------------------ variable width

    /** Writes the constructor and size of a variable-width value of {@code length} bytes; returns its content offset. */
    private int variableHeader(int code8, int code32, int length, String what) {
        int ec = element();
        if (ec == 0) {
            if (length <= 255) {
                ensure(2 + length);
                buf[pos] = (byte) code8;
                buf[pos + 1] = (byte) length;
                pos += 2;
            } else {
                ensure(5 + length);
                buf[pos] = (byte) code32;
                INT.set(buf, pos + 1, length);
                pos += 5;
            }
        } else if (ec == code8) {
            if (length > 255) {
                throw new IllegalArgumentException(what + " of " + length + " bytes does not fit an array of " + FormatCode.name(ec));
            }
            ensure(1 + length);
            buf[pos++] = (byte) length;
        } else if (ec == code32) {
            ensure(4 + length);
            INT.set(buf, pos, length);
            pos += 4;
        } else {
            throw notElement(what, ec);
        }
        return pos;
    }

    /**
     * Writes a binary (vbin8 or vbin32) from {@code bytes[offset, offset + length)}.
     *
     * @param bytes holds the binary
     * @param offset where it starts in {@code bytes}
     * @param length its length in bytes
     */
    public void writeBinary(byte[] bytes, int offset, int length) {
        int at = variableHeader(FormatCode.VBIN8, FormatCode.VBIN32, length, "binary");
        System.arraycopy(bytes, offset, buf, at, length);
        pos = at + length;
    }

    /**
     * Writes a binary from the whole array.
     *
     * @param bytes the binary
     */
    public void writeBinary(byte[] bytes) {
        writeBinary(bytes, 0, bytes.length);
    }

    /**
     * Writes a binary from the remaining bytes of {@code bytes}, without changing its position.
     *
     * @param bytes the binary: the buffer's remaining bytes
     */
    public void writeBinary(ByteBuffer bytes) {
        int n = bytes.remaining();
        int at = variableHeader(FormatCode.VBIN8, FormatCode.VBIN32, n, "binary");
        bytes.get(bytes.position(), buf, at, n);
        pos = at + n;
    }

    /**
     * Writes a string (str8 or str32) as UTF-8; {@code null} writes null. A {@link Utf8String} is copied from its
     * bytes, encoded once when it was made.
     *
     * @param text the string, or null
     */
    public void writeString(CharSequence text) {
        if (text == null) {
            writeNull();
            return;
        }
        if (text instanceof Utf8String) {
            byte[] b = ((Utf8String) text).bytes();
            writeStringUtf8(b, 0, b.length);
            return;
        }
        int chars = text.length();
        int ec = !(uncounted > 0 && depth == uncountedDepth) ? curElement : 0;
        if (ec == 0 && chars * 3 <= 255) {
            // Short enough that even all-3-byte UTF-8 fits str8: encode in one pass, backfill the length.
            element();
            ensure(2 + chars * 3);
            buf[pos] = (byte) FormatCode.STR8;
            int endAt = Utf8.encode(text, buf, pos + 2);
            buf[pos + 1] = (byte) (endAt - pos - 2);
            pos = endAt;
            return;
        }
        int length = Utf8.encodedLength(text);
        int at = variableHeader(FormatCode.STR8, FormatCode.STR32, length, "string");
        pos = Utf8.encode(text, buf, at);
    }

    /**
     * Writes a string from bytes that are already UTF-8 (not checked here; the reading side validates), for
     * copying a string from one encoding to another without a String in between.
     *
     * @param utf8 holds the string's UTF-8 bytes
     * @param offset where they start in {@code utf8}
     * @param length their length in bytes
     */
    public void writeStringUtf8(byte[] utf8, int offset, int length) {
        int at = variableHeader(FormatCode.STR8, FormatCode.STR32, length, "string");
        System.arraycopy(utf8, offset, buf, at, length);
        pos = at + length;
    }

    /**
     * Writes a symbol (sym8 or sym32); {@code null} writes null.
     *
     * @param symbol the symbol
     */
    public void writeSymbol(Symbol symbol) {
        if (symbol == null) {
            writeNull();
            return;
        }
        byte[] b = symbol.bytes();
        writeSymbolAscii(b, 0, b.length);
    }

    /**
     * Writes a symbol from ASCII text; {@code null} writes null.
     *
     * @param ascii the symbol's text, ASCII only
     * @throws IllegalArgumentException if the text is not ASCII
     */
    public void writeSymbol(CharSequence ascii) {
        if (ascii == null) {
            writeNull();
            return;
        }
        if (ascii instanceof Symbol) {
            writeSymbol((Symbol) ascii); // already encoded, already checked to be ASCII
            return;
        }
        int n = ascii.length();
        int at = variableHeader(FormatCode.SYM8, FormatCode.SYM32, n, "symbol");
        for (int i = 0; i < n; i++) {
            char c = ascii.charAt(i);
            if (c >= 0x80) {
                throw new IllegalArgumentException("symbol is not ASCII at index " + i);
            }
            buf[at + i] = (byte) c;
        }
        pos = at + n;
    }

    /**
     * Writes a symbol from ASCII bytes (not checked).
     *
     * @param ascii holds the symbol's ASCII bytes
     * @param offset where they start in {@code ascii}
     * @param length their length in bytes
     */
    public void writeSymbolAscii(byte[] ascii, int offset, int length) {
        int at = variableHeader(FormatCode.SYM8, FormatCode.SYM32, length, "symbol");
        System.arraycopy(ascii, offset, buf, at, length);
        pos = at + length;
    }

    /**
     * Appends a complete encoded value (for example one copied from a reader between
     * {@link AmqpReader#valueStart()} and {@link AmqpReader#valueEnd()}); it counts as one element. Not allowed
     * inside an array, whose elements have no constructor.
     *
     * @param encoded holds one complete encoded value
     * @param offset where they start in {@code encoded}
     * @param length their length in bytes
     */
    public void writeEncoded(byte[] encoded, int offset, int length) {
        int ec = element();
        if (ec != 0) {
            throw notElement("an encoded value", ec);
        }
        ensure(length);
        System.arraycopy(encoded, offset, buf, pos, length);
        pos += length;
    }
}
