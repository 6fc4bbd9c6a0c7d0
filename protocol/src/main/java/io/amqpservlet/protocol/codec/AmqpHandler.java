package io.amqpservlet.protocol.codec;

/**
 * Receives the values an {@link AmqpScanner} walks, in encoding order. Every method gets the scanner's
 * {@link AmqpReader} as a cursor positioned on the value in question, so a handler reads what it needs with the
 * reader's getters ({@link AmqpReader#getLong()}, {@link AmqpReader#valueOffset()}, ...) and nothing is
 * allocated on its behalf.
 *
 * <p>A {@code start} method returns {@code true} to descend into the compound (its elements follow, then the
 * matching {@code end} call) or {@code false} to skip it whole in O(1): no element and no {@code end} call is
 * reported for a skipped compound. A described value reports its descriptor and then the value it describes as
 * its two elements. The elements of an array whose constructor is described (AMQP 1.0 §1.2) are reported as
 * plain values; {@link AmqpReader#enclosingArrayDescriptorOffset()} says where their shared descriptor is.
 *
 * <p>A handler must not move the cursor ({@code next}, {@code enter}, {@code exit}, {@code seek}, {@code wrap}):
 * the scanner does that. When an {@code end} method is called the cursor has just left the compound and has no
 * current value.
 *
 * <pre>{@code
 * // Sums every integer anywhere in the value, skipping maps.
 * final class Summer implements AmqpHandler {
 *     long sum;
 *
 *     public void onScalar(AmqpReader cursor) {
 *         if (cursor.type().isIntegral()) {
 *             sum += cursor.getLong();
 *         }
 *     }
 *
 *     public boolean onMapStart(AmqpReader cursor) {
 *         return false;
 *     }
 * }
 * }</pre>
 */
public interface AmqpHandler {
    /**
     * A value that is not a list, map, array or described value (null, numbers, strings, binaries, ...).
     *
     * @param cursor the reader, on the value
     */
    void onScalar(AmqpReader cursor);

    /**
     * A list (list0, list8 or list32; {@link AmqpReader#count()} elements); returns whether to descend.
     *
     * @param cursor the reader, on the value
     * @return whether to visit the list's elements
     */
    default boolean onListStart(AmqpReader cursor) {
        return true;
    }

    /**
     * The end of a list that {@link #onListStart} descended into.
     *
     * @param cursor the reader, on the value
     */
    default void onListEnd(AmqpReader cursor) {
    }

    /**
     * A map ({@link AmqpReader#count()} counts keys and values); returns whether to descend.
     *
     * @param cursor the reader, on the value
     * @return whether to visit the map's keys and values
     */
    default boolean onMapStart(AmqpReader cursor) {
        return true;
    }

    /**
     * The end of a map that {@link #onMapStart} descended into.
     *
     * @param cursor the reader, on the value
     */
    default void onMapEnd(AmqpReader cursor) {
    }

    /**
     * An array ({@link AmqpReader#arrayElementCode()}, {@link AmqpReader#isDescribedArray()}); returns whether to
     * descend.
     *
     * @param cursor the reader, on the value
     * @return whether to visit the array's elements
     */
    default boolean onArrayStart(AmqpReader cursor) {
        return true;
    }

    /**
     * The end of an array that {@link #onArrayStart} descended into.
     *
     * @param cursor the reader, on the value
     */
    default void onArrayEnd(AmqpReader cursor) {
    }

    /**
     * A described value ({@link AmqpReader#descriptorCode()}, {@link AmqpReader#descriptorIs}); returns whether to
     * descend into its descriptor and value.
     *
     * @param cursor the reader, on the value
     * @return whether to visit the descriptor and the value
     */
    default boolean onDescribedStart(AmqpReader cursor) {
        return true;
    }

    /**
     * The end of a described value that {@link #onDescribedStart} descended into.
     *
     * @param cursor the reader, on the value
     */
    default void onDescribedEnd(AmqpReader cursor) {
    }
}
