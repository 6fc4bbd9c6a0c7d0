package io.amqpservlet.protocol.types.transport;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.types.Descriptors;

/** The {@code detach} performative (AMQP 1.0 §2.7.7): detaches a link, closing it when {@code closed}. */
public final class Detach extends Performative {
    private int handle;
    private boolean closed;
    private final ErrorCondition error = new ErrorCondition();

    /** Creates an empty {@code Detach}. */
    public Detach() {
    }

    @Override
    public long descriptor() {
        return Descriptors.DETACH;
    }

    @Override
    public String typeName() {
        return "detach";
    }

    @Override
    public Detach clear() {
        handle = 0;
        closed = false;
        error.clear();
        return this;
    }

    /** {@return the link's handle (unsigned)} */
    public int handle() {
        return handle;
    }

    /**
     * Sets the handle.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Detach handle(int value) {
        handle = value;
        return this;
    }

    /** {@return whether the link is closed rather than only detached (default false)} */
    public boolean closed() {
        return closed;
    }

    /**
     * Sets closed.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Detach closed(boolean value) {
        closed = value;
        return this;
    }

    /** {@return the error, absent for a clean detach} */
    public ErrorCondition error() {
        return error;
    }

    @Override
    public void decode(AmqpReader reader) {
        enterFields(reader);
        clear();
        reader.nextField();
        requireField(reader, "handle");
        handle = reader.getInt();
        closed = reader.nextField() != FormatCode.NULL && reader.getBoolean();
        if (reader.nextField() != FormatCode.NULL) {
            error.decode(reader);
        }
        exitFields(reader);
    }

    @Override
    public void encode(AmqpWriter writer) {
        startFields(writer);
        uintField(writer, handle);
        flagField(writer, closed);
        compositeField(writer, error);
        endFields(writer);
    }

    @Override
    public String toString() {
        StringBuilder sb = traceStart();
        traceUInt(sb, "handle", handle);
        trace(sb, "closed", closed);
        traceComposite(sb, "error", error);
        return traceEnd(sb);
    }
}
