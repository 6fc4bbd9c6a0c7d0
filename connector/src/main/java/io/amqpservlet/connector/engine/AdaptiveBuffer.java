package io.amqpservlet.connector.engine;

import java.nio.ByteBuffer;

/**
 * A connection's input buffer: a byte array that grows to hold a frame that does not fit and shrinks back to its
 * initial size once it has not needed more for a while, so that many idle connections cost little. The engine keeps
 * a partial frame in one ({@link KeptInput}); the codec never needs it, so it lives beside its only user.
 *
 * <p><b>The state rule.</b> The array holds unread bytes in {@code [readIndex, writeIndex)} and free space in
 * {@code [writeIndex, capacity)}; bytes before {@code readIndex} are garbage. The two indexes are the only state:
 * the {@link ByteBuffer} views are derived from them on request and their position and limit are never read back.
 * Whoever writes bytes in reports how many with {@link #commitWrite(int)}; whoever parses them reports how many
 * with {@link #consume(int)}. When the last unread byte is consumed both indexes return to 0, so a buffer that is
 * read as fast as it is filled never needs compacting.
 *
 * <pre>{@code
 * int n = channel.read(buffer.fillModeView());      // or: endPoint.fill(buffer.flushModeView()) in Jetty
 * buffer.commitWrite(n);
 * ... parse buffer.array() in [readIndex, writeIndex), buffer.consume(frameSize) ...
 * buffer.ensureWritable(bytesStillNeeded);          // grows only when a frame does not fit
 * buffer.maybeShrink(System.nanoTime());            // after each read cycle, or from an idle check
 * }</pre>
 *
 * <p>Time is passed in; the buffer has no threads or timers. Not thread-safe: one connection, one thread at a time.
 */
final class AdaptiveBuffer {
    private final int initialCapacity;
    private final int maxCapacity;
    private final long shrinkAfterIdleNanos;

    private byte[] array;
    private ByteBuffer view;
    private int readIndex;
    private int writeIndex;

    /** Set when the unread bytes needed more than the initial capacity; turned into a time by maybeShrink. */
    private boolean neededLargeSinceCheck;
    private long lastNeededLargeNanos;

    /**
     * A buffer of {@code initialCapacity} bytes that may grow to {@code maxCapacity} bytes, and shrinks back after
     * {@code shrinkAfterIdleNanos} without needing more than the initial capacity.
     *
     * @param initialCapacity the first size, and the size it shrinks back to, in bytes
     * @param maxCapacity the largest size it may grow to, in bytes
     * @param shrinkAfterIdleNanos how long it must not need more than the initial capacity before it shrinks
     */
    public AdaptiveBuffer(int initialCapacity, int maxCapacity, long shrinkAfterIdleNanos) {
        if (initialCapacity < 1 || maxCapacity < initialCapacity) {
            throw new IllegalArgumentException("initial capacity " + initialCapacity + ", max " + maxCapacity);
        }
        if (shrinkAfterIdleNanos < 0) {
            throw new IllegalArgumentException("negative shrink delay " + shrinkAfterIdleNanos);
        }
        this.initialCapacity = initialCapacity;
        this.maxCapacity = maxCapacity;
        this.shrinkAfterIdleNanos = shrinkAfterIdleNanos;
        setArray(new byte[initialCapacity]);
    }

    private void setArray(byte[] newArray) {
        array = newArray;
        view = ByteBuffer.wrap(newArray);
    }

    /** {@return the backing array; valid until the next {@link #ensureWritable}, {@link #compact} or {@link #maybeShrink}} */
    public byte[] array() {
        return array;
    }

    /** {@return offset of the first unread byte} */
    public int readIndex() {
        return readIndex;
    }

    /** {@return offset after the last unread byte, where the next byte written goes} */
    public int writeIndex() {
        return writeIndex;
    }

    /** {@return unread bytes} */
    public int readable() {
        return writeIndex - readIndex;
    }

    /** {@return free bytes after {@link #writeIndex()}} */
    public int writable() {
        return array.length - writeIndex;
    }

    /** {@return the current size of the array} */
    public int capacity() {
        return array.length;
    }

    /** {@return the size the buffer starts with and shrinks back to} */
    public int initialCapacity() {
        return initialCapacity;
    }

    /** {@return the size beyond which {@link #ensureWritable} refuses to grow} */
    public int maxCapacity() {
        return maxCapacity;
    }

    /**
     * {@return a view for filling from a NIO channel: position at {@link #writeIndex()}, limit at the capacity} Report
     * what was read with {@link #commitWrite(int)}.
     */
    public ByteBuffer fillModeView() {
        view.limit(array.length).position(writeIndex);
        return view;
    }

    /**
     * {@return a view in Jetty's flush mode ({@code BufferUtil}'s rule): position at {@link #readIndex()}, limit at
     * {@link #writeIndex()}; {@code EndPoint.fill} appends after the limit} Report what was filled with
     * {@link #commitWrite(int)}.
     */
    public ByteBuffer flushModeView() {
        view.limit(writeIndex).position(readIndex);
        return view;
    }

    /**
     * Records that {@code n} bytes were written at {@link #writeIndex()} (a negative n, end of stream, is ignored).
     *
     * @param n how many bytes were written
     */
    public void commitWrite(int n) {
        if (n <= 0) {
            return;
        }
        if (n > writable()) {
            throw new IndexOutOfBoundsException("committed " + n + " bytes with " + writable() + " writable");
        }
        writeIndex += n;
        if (writeIndex - readIndex > initialCapacity) {
            neededLargeSinceCheck = true;
        }
    }

    /**
     * Records that {@code n} unread bytes were parsed and are no longer needed.
     *
     * @param n how many bytes were read
     */
    public void consume(int n) {
        if (n < 0 || n > readable()) {
            throw new IndexOutOfBoundsException("consumed " + n + " bytes with " + readable() + " readable");
        }
        readIndex += n;
        if (readIndex == writeIndex) {
            readIndex = writeIndex = 0;
        }
    }

    /** Moves the unread bytes to the front of the array, making all free space contiguous after them. */
    public void compact() {
        if (readIndex == 0) {
            return;
        }
        int n = writeIndex - readIndex;
        System.arraycopy(array, readIndex, array, 0, n);
        readIndex = 0;
        writeIndex = n;
    }

    /**
     * Makes room for {@code n} more bytes after the unread ones: compacts if that is enough, otherwise grows to
     * the next power of two that holds them, up to {@link #maxCapacity()}.
     *
     * @param n how many bytes must fit
     * @throws IllegalStateException if unread plus {@code n} bytes exceed the max capacity; the buffer is left as
     *                               it was
     */
    public void ensureWritable(int n) {
        if (n <= writable()) {
            return;
        }
        int unread = writeIndex - readIndex;
        long needed = (long) unread + n;
        if (needed > maxCapacity) {
            throw new IllegalStateException("input buffer would need " + needed + " bytes (" + unread
                    + " unread + " + n + "), more than its max of " + maxCapacity);
        }
        if (needed > initialCapacity) {
            neededLargeSinceCheck = true;
        }
        if (needed <= array.length) {
            compact();
            return;
        }
        long size = Long.highestOneBit(needed - 1) << 1; // next power of two >= needed (needed > 1 here)
        byte[] grown = new byte[(int) Math.min(size, maxCapacity)];
        System.arraycopy(array, readIndex, grown, 0, unread);
        setArray(grown);
        readIndex = 0;
        writeIndex = unread;
    }

    /**
     * Shrinks back to the initial capacity when the buffer is larger, has not needed more than the initial
     * capacity for the idle delay, and its unread bytes fit (they are copied). Call it with the current time after
     * each read cycle or from an idle check; the first call after a large use records that time.
     *
     * @param nowNanos the current {@link System#nanoTime()}
     * @return whether it shrank
     */
    public boolean maybeShrink(long nowNanos) {
        if (neededLargeSinceCheck || writeIndex - readIndex > initialCapacity) {
            neededLargeSinceCheck = false;
            lastNeededLargeNanos = nowNanos;
            return false;
        }
        if (array.length == initialCapacity || nowNanos - lastNeededLargeNanos < shrinkAfterIdleNanos) {
            return false;
        }
        int unread = writeIndex - readIndex;
        byte[] small = new byte[initialCapacity];
        System.arraycopy(array, readIndex, small, 0, unread);
        setArray(small);
        readIndex = 0;
        writeIndex = unread;
        return true;
    }

    /** {@return nanosecond time (as passed to {@link #maybeShrink}) when the buffer was last seen needing its large size} */
    public long lastNeededLargeNanos() {
        return lastNeededLargeNanos;
    }

    @Override
    public String toString() {
        return "AdaptiveBuffer[read=" + readIndex + ", write=" + writeIndex + ", capacity=" + array.length
                + "/" + initialCapacity + ".." + maxCapacity + "]";
    }
}
