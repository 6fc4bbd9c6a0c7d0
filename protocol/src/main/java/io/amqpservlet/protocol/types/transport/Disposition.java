package io.amqpservlet.protocol.types.transport;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.types.Descriptors;
import io.amqpservlet.protocol.types.messaging.DeliveryState;

/**
 * The {@code disposition} performative (AMQP 1.0 §2.7.6): the state or settlement of the deliveries with ids
 * {@code first} to {@code last} inclusive (serial numbers held in {@code int}s). An absent {@code last} means
 * {@code first}, and {@link #last()} returns it so.
 */
public final class Disposition extends Performative {
    private Role role = Role.SENDER;
    private int first;
    private int last;
    private boolean hasLast;
    private boolean settled;
    private final DeliveryState state = new DeliveryState();
    private boolean batchable;

    /** Creates an empty {@code Disposition}. */
    public Disposition() {
    }

    @Override
    public long descriptor() {
        return Descriptors.DISPOSITION;
    }

    @Override
    public String typeName() {
        return "disposition";
    }

    @Override
    public Disposition clear() {
        role = Role.SENDER;
        first = 0;
        last = 0;
        hasLast = false;
        settled = false;
        state.clear();
        batchable = false;
        return this;
    }

    /** {@return the role of the sender of this disposition} */
    public Role role() {
        return role;
    }

    /**
     * Sets the role.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Disposition role(Role value) {
        role = value;
        return this;
    }

    /** {@return the first delivery-id of the range} */
    public int first() {
        return first;
    }

    /**
     * Sets first.
     *
     * @param deliveryId the new value
     * @return this, for chaining
     */
    public Disposition first(int deliveryId) {
        first = deliveryId;
        return this;
    }

    /** {@return whether last was sent} */
    public boolean hasLast() {
        return hasLast;
    }

    /** {@return the last delivery-id of the range: {@link #first()} when absent (AMQP 1.0 §2.7.6)} */
    public int last() {
        return hasLast ? last : first;
    }

    /**
     * Sets last.
     *
     * @param deliveryId the new value
     * @return this, for chaining
     */
    public Disposition last(int deliveryId) {
        last = deliveryId;
        hasLast = true;
        return this;
    }

    /**
     * Removes last, making the range the single delivery {@code first}.
     *
     * @return this, for chaining
     */
    public Disposition clearLast() {
        last = 0;
        hasLast = false;
        return this;
    }

    /** {@return whether the deliveries are settled (default false)} */
    public boolean settled() {
        return settled;
    }

    /**
     * Sets settled.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Disposition settled(boolean value) {
        settled = value;
        return this;
    }

    /** {@return the delivery state, absent when {@link DeliveryState#isNull()}} */
    public DeliveryState state() {
        return state;
    }

    /** {@return whether the peer may delay acting on this disposition (default false)} */
    public boolean batchable() {
        return batchable;
    }

    /**
     * Sets batchable.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Disposition batchable(boolean value) {
        batchable = value;
        return this;
    }

    @Override
    public void decode(AmqpReader reader) {
        enterFields(reader);
        clear();
        reader.nextField();
        requireField(reader, "role");
        role = Role.of(reader.getBoolean());
        reader.nextField();
        requireField(reader, "first");
        first = reader.getInt();
        if (reader.nextField() != FormatCode.NULL) {
            last = reader.getInt();
            hasLast = true;
        }
        settled = reader.nextField() != FormatCode.NULL && reader.getBoolean();
        if (reader.nextField() != FormatCode.NULL) {
            state.decode(reader);
        }
        batchable = reader.nextField() != FormatCode.NULL && reader.getBoolean();
        exitFields(reader);
    }

    @Override
    public void encode(AmqpWriter writer) {
        startFields(writer);
        booleanField(writer, role.encoded());
        uintField(writer, first);
        if (hasLast) {
            uintField(writer, last);
        } else {
            skipField();
        }
        flagField(writer, settled);
        compositeField(writer, state);
        flagField(writer, batchable);
        endFields(writer);
    }

    @Override
    public String toString() {
        StringBuilder sb = traceStart();
        trace(sb, "role", role == Role.RECEIVER);
        traceUInt(sb, "first", first);
        if (hasLast) {
            traceUInt(sb, "last", last);
        }
        trace(sb, "settled", settled);
        traceComposite(sb, "state", state);
        trace(sb, "batchable", batchable);
        return traceEnd(sb);
    }
}
