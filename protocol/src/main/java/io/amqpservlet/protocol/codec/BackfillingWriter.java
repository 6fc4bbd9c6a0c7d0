package io.amqpservlet.protocol.codec;

import io.amqpservlet.protocol.types.Symbol;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The structure half of {@link AmqpWriter}: the output array (its own, growable, or a caller's, fixed) and the
 * compounds being written. A list, map or array is written in one pass: {@code start} reserves the short (8-bit)
 * size and count fields, every value written inside counts as one element, and {@code end} backfills the fields,
 * widening to the 32-bit form in place only when the content needs it. Described values and array element
 * constructors are handled here too, so the typed writes in {@link AmqpWriter} only ask {@code element()} whether
 * to write a constructor.
 */
public abstract class BackfillingWriter {
    static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
    static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    byte[] buf;
    int base;
    int pos;
    int end;
    boolean growable;

    // Open compounds: where each starts, how many elements it has, its format code, and for arrays the element code.
    int depth;
    int[] openStart = new int[8];
    int[] openCount = new int[8];
    // The innermost open compound's element count and array element code (0: not an array, or top level), in
    // fields so that every write touches no array; openCount/openElement keep the outer levels' values.
    int curCount;
    int curElement;
    int[] openCode = new int[8];
    int[] openElement = new int[8];
    // Values still to come at depth uncountedDepth that belong to a described value already counted as one element:
    // the value after a descriptor (1), or the descriptor and the value after startDescribed() (2).
    int uncounted;
    int uncountedDepth;
    // The uncounted values of the enclosing level, set aside while a compound inside it is open (for example a
    // list that is a descriptor, holding described values of its own), and restored when that compound ends.
    int[] openUncounted = new int[8];

    /** A writer with its own buffer of 256 bytes, grown as needed. */
    BackfillingWriter() {
        this(256);
    }

    /** A writer with its own buffer of {@code initialCapacity} bytes, grown as needed. */
    BackfillingWriter(int initialCapacity) {
        this.buf = new byte[Math.max(16, initialCapacity)];
        this.end = buf.length;
        this.growable = true;
    }

    /** Writes from the start of the own buffer again. */
    public BackfillingWriter clear() {
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
     */
    public BackfillingWriter wrap(byte[] target, int offset, int length) {
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
     */
    public BackfillingWriter wrap(ByteBuffer target) {
        if (!target.hasArray() || target.isReadOnly()) {
            throw new IllegalArgumentException("wrap a writable heap buffer, or encode and copyTo a direct one");
        }
        return wrap(target.array(), target.arrayOffset() + target.position(), target.remaining());
    }

    /** Advances {@code target}'s position past the bytes written since {@link #wrap(ByteBuffer)}. */
    public void finishInto(ByteBuffer target) {
        target.position(target.position() + (pos - base));
    }

    /** Returns to a growable buffer of the writer's own (a new one; call once, not per message). */
    public BackfillingWriter unwrap() {
        buf = new byte[256];
        base = pos = 0;
        end = buf.length;
        growable = true;
        depth = 0;
        curCount = 0;
        curElement = 0;
        return this;
    }

    /** The array written into. */
    public byte[] array() {
        return buf;
    }

    /** Offset in {@link #array()} of the first byte written since the last clear or wrap. */
    public int start() {
        return base;
    }

    /** Offset in {@link #array()} where the next byte goes. */
    public int position() {
        return pos;
    }

    /** Bytes written since the last clear or wrap. */
    public int length() {
        return pos - base;
    }

    /** Copies what was written into {@code dst} and advances its position. */
    public void copyTo(ByteBuffer dst) {
        dst.put(buf, base, pos - base);
    }

    /** A copy of what was written (allocates; for tests and tools). */
    public byte[] toByteArray() {
        return Arrays.copyOfRange(buf, base, pos);
    }

    /**
     * Moves the write position back to {@code position} (an earlier {@link #position()}), discarding what came
     * after. Only with no compound open since then.
     */
    public void truncate(int position) {
        if (position < base || position > pos) {
            throw new IndexOutOfBoundsException("position " + position + " outside [" + base + ", " + pos + "]");
        }
        pos = position;
    }

    /** How many compounds are open. */
    public int depth() {
        return depth;
    }

    // ------------------------------------------------------------------------------------------ buffer

    void ensure(int n) {
        if (pos + n > end) {
            grow(n);
        }
    }

    void grow(int n) {
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

    /** Makes room for {@code n} more bytes and returns the offset to write them at (for callers filling a payload). */
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
    int element() {
        if (uncounted > 0 && depth == uncountedDepth) {
            uncounted--;
            return 0;
        }
        curCount++;
        return curElement;
    }

    /** The closing compound's element count; restores the enclosing level's count and element code. */
    int popCount(int closingLevel) {
        int n = curCount;
        curCount = closingLevel > 0 ? openCount[closingLevel - 1] : 0;
        curElement = closingLevel > 0 ? openElement[closingLevel - 1] : 0;
        return n;
    }

    IllegalArgumentException notElement(String what, int elementCode) {
        return new IllegalArgumentException(what + " cannot be an element of an array of " + FormatCode.name(elementCode));
    }

    // ------------------------------------------------------------------------------------------ described

    /** Writes the descriptor of a described value with a numeric descriptor code; the next value written is described. */
    public void writeDescriptor(long code) {
        beginDescribed(1);
        putULong(code);
    }

    /** Writes the descriptor of a described value with a symbolic descriptor; the next value written is described. */
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
    void putULong(long value) {
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
    void putSymbol(byte[] ascii) {
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

    /** Starts an array whose elements all have the format code {@code elementCode} (see {@link FormatCode}). */
    public void startArray(int elementCode) {
        startArray(elementCode, false, 0, null);
    }

    /** Starts an array of values described by the numeric descriptor {@code descriptor}. */
    public void startDescribedArray(long descriptor, int elementCode) {
        startArray(elementCode, true, descriptor, null);
    }

    /** Starts an array of values described by the symbolic descriptor {@code descriptor}. */
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
}
