package io.amqpservlet.protocol.types.messaging;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.UnexpectedTypeException;
import io.amqpservlet.protocol.types.Descriptors;

/**
 * The {@code header} section of a message (AMQP 1.0 §3.2.1): transport headers an intermediary may change.
 * A mutable object meant to be reused: {@link #decode} overwrites every field, {@link #clear()} restores the
 * spec defaults (not durable, priority 4, no ttl, not first acquirer, delivery-count 0).
 *
 * <p>Encoding writes a field equal to its default as null (AMQP 1.0 §1.4: a null field takes its default) and
 * omits trailing nulls, so an all-default header is {@code 0x00 0x53 0x70 0x45}.
 */
public final class Header {
    /** Field index of durable in the header list. */
    public static final int DURABLE = 0;
    /** Field index of priority. */
    public static final int PRIORITY = 1;
    /** Field index of ttl. */
    public static final int TTL = 2;
    /** Field index of first-acquirer. */
    public static final int FIRST_ACQUIRER = 3;
    /** Field index of delivery-count. */
    public static final int DELIVERY_COUNT = 4;
    /** The number of fields AMQP 1.0 defines. */
    public static final int FIELD_COUNT = 5;

    /** AMQP 1.0 §3.2.1: the priority of a message that does not say. */
    public static final int DEFAULT_PRIORITY = 4;

    private boolean durable;
    private int priority = DEFAULT_PRIORITY;
    private long ttlMillis = -1;
    private boolean firstAcquirer;
    private long deliveryCount;

    /** Creates an empty {@code Header}. */
    public Header() {
    }

    /**
     * Restores every field to its default.
     *
     * @return this, for chaining
     */
    public Header clear() {
        durable = false;
        priority = DEFAULT_PRIORITY;
        ttlMillis = -1;
        firstAcquirer = false;
        deliveryCount = 0;
        return this;
    }

    /** {@return whether the message must survive an intermediary's restart} */
    public boolean durable() {
        return durable;
    }

    /**
     * Sets durable.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Header durable(boolean value) {
        durable = value;
        return this;
    }

    /** {@return the relative priority, 0-255 (ubyte); 4 by default} */
    public int priority() {
        return priority;
    }

    /**
     * Sets priority, 0-255.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Header priority(int value) {
        if (value < 0 || value > 255) {
            throw new IllegalArgumentException("priority is a ubyte: " + value);
        }
        priority = value;
        return this;
    }

    /** {@return whether a time to live is set} */
    public boolean hasTtl() {
        return ttlMillis >= 0;
    }

    /** {@return the time to live in milliseconds (a uint), or -1 when not set} */
    public long ttlMillis() {
        return ttlMillis;
    }

    /**
     * Sets the time to live in milliseconds, 0 to 2^32-1; -1 removes it.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Header ttlMillis(long value) {
        if (value < -1 || value > 0xFFFFFFFFL) {
            throw new IllegalArgumentException("ttl is a uint of milliseconds: " + value);
        }
        ttlMillis = value;
        return this;
    }

    /** {@return whether this message has not been acquired by any other link} */
    public boolean firstAcquirer() {
        return firstAcquirer;
    }

    /**
     * Sets first-acquirer.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Header firstAcquirer(boolean value) {
        firstAcquirer = value;
        return this;
    }

    /** {@return the number of unsuccessful earlier delivery attempts (a uint, in a long)} */
    public long deliveryCount() {
        return deliveryCount;
    }

    /**
     * Sets delivery-count, 0 to 2^32-1.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Header deliveryCount(long value) {
        if (value < 0 || value > 0xFFFFFFFFL) {
            throw new IllegalArgumentException("delivery-count is a uint: " + value);
        }
        deliveryCount = value;
        return this;
    }

    /**
     * Reads the header section the reader is positioned on (the described value, numeric or symbolic
     * descriptor) and leaves the reader after it. Absent and null fields take their defaults.
     *
     * @param reader the reader to decode from
     * @return this, for chaining
     */
    public Header decode(AmqpReader reader) {
        SectionDescriptor.enter(reader, Descriptors.HEADER, "header", true);
        reader.enter();
        // AMQP 1.0 §1.4: trailing null fields may be omitted; nextField reads them as null.
        reader.nextField();
        durable = reader.getBoolean(false);
        reader.nextField();
        priority = reader.isNull() ? DEFAULT_PRIORITY : reader.getInt();
        if (priority < 0 || priority > 255) {
            throw new UnexpectedTypeException("header priority " + priority + " is not a ubyte", reader.valueStart());
        }
        reader.nextField();
        ttlMillis = reader.isNull() ? -1 : reader.getUnsignedInt();
        reader.nextField();
        firstAcquirer = reader.getBoolean(false);
        reader.nextField();
        deliveryCount = reader.isNull() ? 0 : reader.getUnsignedInt();
        reader.exit(); // the list (and the section), skipping fields a later version may add
        return this;
    }

    /**
     * Writes the header section with the smallest encoding: defaults as null, trailing nulls omitted.
     *
     * @param writer the writer to encode into
     */
    public void encode(AmqpWriter writer) {
        int last = deliveryCount != 0 ? DELIVERY_COUNT
                : firstAcquirer ? FIRST_ACQUIRER
                : ttlMillis >= 0 ? TTL
                : priority != DEFAULT_PRIORITY ? PRIORITY
                : durable ? DURABLE : -1;
        writer.writeDescriptor(Descriptors.HEADER);
        writer.startList();
        for (int i = 0; i <= last; i++) {
            switch (i) {
                case DURABLE:
                    if (durable) {
                        writer.writeBoolean(true);
                    } else {
                        writer.writeNull();
                    }
                    break;
                case PRIORITY:
                    if (priority != DEFAULT_PRIORITY) {
                        writer.writeUByte(priority);
                    } else {
                        writer.writeNull();
                    }
                    break;
                case TTL:
                    if (ttlMillis >= 0) {
                        writer.writeUInt(ttlMillis);
                    } else {
                        writer.writeNull();
                    }
                    break;
                case FIRST_ACQUIRER:
                    if (firstAcquirer) {
                        writer.writeBoolean(true);
                    } else {
                        writer.writeNull();
                    }
                    break;
                default:
                    writer.writeUInt(deliveryCount);
                    break;
            }
        }
        writer.endList();
    }

    /** A readable form for logs and traces (allocates). */
    @Override
    public String toString() {
        return "Header[durable=" + durable + ", priority=" + priority + ", ttl=" + (ttlMillis < 0 ? "none" : ttlMillis + "ms")
                + ", firstAcquirer=" + firstAcquirer + ", deliveryCount=" + deliveryCount + "]";
    }
}
