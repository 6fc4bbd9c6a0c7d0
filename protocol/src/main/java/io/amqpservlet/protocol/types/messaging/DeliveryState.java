package io.amqpservlet.protocol.types.messaging;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.codec.UnexpectedTypeException;
import io.amqpservlet.protocol.types.DescribedList;
import io.amqpservlet.protocol.types.Descriptors;
import io.amqpservlet.protocol.types.EncodedValue;
import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.transport.ErrorCondition;

/**
 * One mutable holder for the delivery-state union of a transfer, a disposition or a source's default-outcome:
 * none, received (AMQP 1.0 §3.4.1), accepted (§3.4.2), rejected (§3.4.3), released (§3.4.4), modified (§3.4.5),
 * declared (§4.5.5) or transactional-state (§4.5.8, kept as its raw encoding: transactions are recognised, not
 * implemented). {@link #kind()} is the descriptor code of the state held, or {@link #NONE}. Switching kinds
 * resets the fields the previous kind used; nothing is allocated.
 */
public final class DeliveryState extends DescribedList {
    /** No state: the field is absent. */
    public static final int NONE = 0;
    /** {@link #kind()} of the received state (AMQP 1.0 §3.4.1). */
    public static final int RECEIVED = (int) Descriptors.RECEIVED;
    /** {@link #kind()} of the accepted state (AMQP 1.0 §3.4.2). */
    public static final int ACCEPTED = (int) Descriptors.ACCEPTED;
    /** {@link #kind()} of the rejected state (AMQP 1.0 §3.4.3). */
    public static final int REJECTED = (int) Descriptors.REJECTED;
    /** {@link #kind()} of the released state (AMQP 1.0 §3.4.4). */
    public static final int RELEASED = (int) Descriptors.RELEASED;
    /** {@link #kind()} of the modified state (AMQP 1.0 §3.4.5). */
    public static final int MODIFIED = (int) Descriptors.MODIFIED;
    /** {@link #kind()} of the declared state (AMQP 1.0 §4.5.5). */
    public static final int DECLARED = (int) Descriptors.DECLARED;
    /** {@link #kind()} of the transactional state (AMQP 1.0 §4.5.8). */
    public static final int TRANSACTIONAL = (int) Descriptors.TRANSACTIONAL_STATE;

    private int kind;
    private int sectionNumber;
    private long sectionOffset;
    private final ErrorCondition error = new ErrorCondition();
    private boolean deliveryFailed;
    private boolean undeliverableHere;
    private final EncodedValue messageAnnotations = new EncodedValue();
    private final MutableBytes txnId = new MutableBytes();
    private final EncodedValue transactional = new EncodedValue();

    /** Creates an empty {@code DeliveryState}. */
    public DeliveryState() {
    }

    /** The descriptor code of the held state, or 0 for none. */
    @Override
    public long descriptor() {
        return kind;
    }

    @Override
    public String typeName() {
        switch (kind) {
            case NONE: return "none";
            case 0x23: return "received";
            case 0x24: return "accepted";
            case 0x25: return "rejected";
            case 0x26: return "released";
            case 0x27: return "modified";
            case 0x33: return "declared";
            default: return "transactional-state";
        }
    }

    /** Absent: no state held. */
    @Override
    public boolean isNull() {
        return kind == NONE;
    }

    /** Makes the state absent. */
    @Override
    public DeliveryState clear() {
        return kind(NONE);
    }

    /** {@return the descriptor code of the held state ({@link #ACCEPTED} ...), or {@link #NONE}} */
    public int kind() {
        return kind;
    }

    /** {@return whether a terminal outcome is held: accepted, rejected, released or modified (AMQP 1.0 §3.4)} */
    public boolean isOutcome() {
        return kind >= ACCEPTED && kind <= MODIFIED;
    }

    private DeliveryState kind(int k) {
        if (k == NONE && kind == NONE) {
            return this; // already empty: every decode of a transfer without a state comes here
        }
        kind = k;
        sectionNumber = 0;
        sectionOffset = 0;
        error.clear();
        deliveryFailed = false;
        undeliverableHere = false;
        messageAnnotations.clear();
        txnId.clear();
        transactional.clear();
        return this;
    }

    /**
     * Holds the received state with where to resume (section-number uint, section-offset ulong).
     *
     * @param sectionNumber the section to resume at (unsigned)
     * @param sectionOffset the offset within that section
     * @return this, for chaining
     */
    public DeliveryState received(int sectionNumber, long sectionOffset) {
        kind(RECEIVED);
        this.sectionNumber = sectionNumber;
        this.sectionOffset = sectionOffset;
        return this;
    }

    /**
     * Holds the accepted outcome.
     *
     * @return this, for chaining
     */
    public DeliveryState accepted() {
        return kind(ACCEPTED);
    }

    /**
     * Holds the rejected outcome without an error; set one through {@link #error()}.
     *
     * @return this, for chaining
     */
    public DeliveryState rejected() {
        return kind(REJECTED);
    }

    /**
     * Holds the released outcome.
     *
     * @return this, for chaining
     */
    public DeliveryState released() {
        return kind(RELEASED);
    }

    /**
     * Holds the modified outcome; message-annotations may be set through {@link #messageAnnotations()}.
     *
     * @param deliveryFailed whether the delivery-count should be incremented
     * @param undeliverableHere whether the message must not be redelivered to this link
     * @return this, for chaining
     */
    public DeliveryState modified(boolean deliveryFailed, boolean undeliverableHere) {
        kind(MODIFIED);
        this.deliveryFailed = deliveryFailed;
        this.undeliverableHere = undeliverableHere;
        return this;
    }

    /**
     * Holds the declared state; set the transaction id through {@link #txnId()}.
     *
     * @return this, for chaining
     */
    public DeliveryState declared() {
        return kind(DECLARED);
    }

    /**
     * Copies another holder's state.
     *
     * @param other the value to copy
     * @return this, for chaining
     */
    public DeliveryState set(DeliveryState other) {
        kind(other.kind);
        sectionNumber = other.sectionNumber;
        sectionOffset = other.sectionOffset;
        error.set(other.error);
        deliveryFailed = other.deliveryFailed;
        undeliverableHere = other.undeliverableHere;
        if (!other.messageAnnotations.isNull()) {
            messageAnnotations.set(other.messageAnnotations.array(), 0, other.messageAnnotations.length());
        }
        txnId.set(other.txnId);
        if (!other.transactional.isNull()) {
            transactional.set(other.transactional.array(), 0, other.transactional.length());
        }
        return this;
    }

    /** {@return received: the section to resume at (unsigned)} */
    public int sectionNumber() {
        return sectionNumber;
    }

    /** {@return received: the offset within that section} */
    public long sectionOffset() {
        return sectionOffset;
    }

    /** {@return rejected: the error, absent when none was given} */
    public ErrorCondition error() {
        return error;
    }

    /** {@return modified: whether the delivery-count should be incremented} */
    public boolean deliveryFailed() {
        return deliveryFailed;
    }

    /** {@return modified: whether the message must not be redelivered to this link} */
    public boolean undeliverableHere() {
        return undeliverableHere;
    }

    /** {@return modified: annotations to merge into the message, kept encoded} */
    public EncodedValue messageAnnotations() {
        return messageAnnotations;
    }

    /** {@return declared: the transaction id} */
    public MutableBytes txnId() {
        return txnId;
    }

    /** {@return transactional-state: the whole described value as received} */
    public EncodedValue transactional() {
        return transactional;
    }

    @Override
    public void decode(AmqpReader reader) {
        if (reader.formatCode() != FormatCode.DESCRIBED) {
            throw new UnexpectedTypeException("expected a described delivery-state but found "
                    + FormatCode.name(reader.formatCode()), reader.valueStart());
        }
        long code = Descriptors.codeOf(reader);
        switch (code >= 0 && code <= 0xFF ? (int) code : -1) {
            case 0x23:
            case 0x24:
            case 0x25:
            case 0x26:
            case 0x27:
            case 0x33:
                kind((int) code);
                decodeFields(reader);
                return;
            case 0x34:
                kind(TRANSACTIONAL);
                transactional.read(reader);
                return;
            default:
                break;
        }
        throw new UnexpectedTypeException("descriptor " + (code < 0 ? "of another kind" : "0x" + Long.toHexString(code))
                + " is not a delivery-state", reader.valueStart());
    }

    private void decodeFields(AmqpReader reader) {
        enterBody(reader, typeName());
        switch (kind) {
            case 0x23:
                reader.nextField();
                requireField(reader, "section-number");
                sectionNumber = reader.getInt();
                reader.nextField();
                requireField(reader, "section-offset");
                sectionOffset = reader.getLong();
                break;
            case 0x25:
                if (reader.nextField() != FormatCode.NULL) {
                    error.decode(reader);
                }
                break;
            case 0x27:
                deliveryFailed = reader.nextField() != FormatCode.NULL && reader.getBoolean();
                undeliverableHere = reader.nextField() != FormatCode.NULL && reader.getBoolean();
                reader.nextField();
                messageAnnotations.read(reader);
                break;
            case 0x33:
                reader.nextField();
                requireField(reader, "txn-id");
                txnId.read(reader);
                break;
            default:
                break; // accepted and released have no fields
        }
        exitFields(reader);
    }

    @Override
    public void encode(AmqpWriter writer) {
        switch (kind) {
            case NONE:
                writer.writeNull();
                return;
            case 0x34:
                transactional.write(writer);
                return;
            default:
                break;
        }
        startFields(writer);
        switch (kind) {
            case 0x23:
                uintField(writer, sectionNumber);
                ulongField(writer, sectionOffset);
                break;
            case 0x25:
                compositeField(writer, error);
                break;
            case 0x27:
                flagField(writer, deliveryFailed);
                flagField(writer, undeliverableHere);
                encodedField(writer, messageAnnotations);
                break;
            case 0x33:
                if (txnId.isNull()) {
                    throw missing("txn-id");
                }
                binaryField(writer, txnId);
                break;
            default:
                break;
        }
        endFields(writer);
    }

    @Override
    public String toString() {
        if (kind == NONE) {
            return "null";
        }
        if (kind == TRANSACTIONAL) {
            StringBuilder sb = traceStart();
            traceEncoded(sb, "value", transactional);
            return traceEnd(sb);
        }
        StringBuilder sb = traceStart();
        switch (kind) {
            case 0x23:
                traceUInt(sb, "section-number", sectionNumber);
                trace(sb, "section-offset", sectionOffset);
                break;
            case 0x25:
                traceComposite(sb, "error", error);
                break;
            case 0x27:
                trace(sb, "delivery-failed", deliveryFailed);
                trace(sb, "undeliverable-here", undeliverableHere);
                traceEncoded(sb, "message-annotations", messageAnnotations);
                break;
            case 0x33:
                traceBinary(sb, "txn-id", txnId);
                break;
            default:
                break;
        }
        return traceEnd(sb);
    }
}
