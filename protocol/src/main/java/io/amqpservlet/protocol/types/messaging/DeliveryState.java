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
 * implemented). {@link #kind()} says which of them is held. Switching kinds resets the fields the previous kind
 * used; nothing is allocated.
 */
public final class DeliveryState extends DescribedList {
    /**
     * Which member of the delivery-state union a holder holds. The wire code of each (its descriptor, AMQP 1.0
     * §3.4 and §4.5) stays inside this class: {@link DeliveryState#descriptor()} gives it.
     */
    public enum Kind {
        /** No state: the field is absent. */
        NONE(0, "none", false),
        /** The received state (AMQP 1.0 §3.4.1): where to resume a partly transferred message. */
        RECEIVED(Descriptors.RECEIVED, "received", false),
        /** The accepted outcome (AMQP 1.0 §3.4.2). */
        ACCEPTED(Descriptors.ACCEPTED, "accepted", true),
        /** The rejected outcome (AMQP 1.0 §3.4.3), with an error. */
        REJECTED(Descriptors.REJECTED, "rejected", true),
        /** The released outcome (AMQP 1.0 §3.4.4). */
        RELEASED(Descriptors.RELEASED, "released", true),
        /** The modified outcome (AMQP 1.0 §3.4.5). */
        MODIFIED(Descriptors.MODIFIED, "modified", true),
        /** The declared state of a transaction coordinator (AMQP 1.0 §4.5.5). */
        DECLARED(Descriptors.DECLARED, "declared", false),
        /** The transactional state (AMQP 1.0 §4.5.8), kept as its encoding. */
        TRANSACTIONAL(Descriptors.TRANSACTIONAL_STATE, "transactional-state", false);

        private final long descriptor;
        private final String typeName;
        private final boolean outcome;

        Kind(long descriptor, String typeName, boolean outcome) {
            this.descriptor = descriptor;
            this.typeName = typeName;
            this.outcome = outcome;
        }

        /** {@return whether this is a terminal outcome: accepted, rejected, released or modified (AMQP 1.0 §3.4)} */
        public boolean isOutcome() {
            return outcome;
        }

        /** The kind a descriptor code names, or null when it names no delivery-state. */
        private static Kind ofDescriptor(long code) {
            switch (code >= 0 && code <= 0xFF ? (int) code : -1) {
                case 0x23: return RECEIVED;
                case 0x24: return ACCEPTED;
                case 0x25: return REJECTED;
                case 0x26: return RELEASED;
                case 0x27: return MODIFIED;
                case 0x33: return DECLARED;
                case 0x34: return TRANSACTIONAL;
                default: return null;
            }
        }
    }

    private Kind kind = Kind.NONE;
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
        return kind.descriptor;
    }

    @Override
    public String typeName() {
        return kind.typeName;
    }

    /** Absent: no state held. */
    @Override
    public boolean isNull() {
        return kind == Kind.NONE;
    }

    /** Makes the state absent. */
    @Override
    public DeliveryState clear() {
        return kind(Kind.NONE);
    }

    /** {@return which member of the union is held; {@link Kind#NONE} when the state is absent} */
    public Kind kind() {
        return kind;
    }

    /** {@return whether a terminal outcome is held: accepted, rejected, released or modified (AMQP 1.0 §3.4)} */
    public boolean isOutcome() {
        return kind.outcome;
    }

    private DeliveryState kind(Kind k) {
        if (k == Kind.NONE && kind == Kind.NONE) {
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
        kind(Kind.RECEIVED);
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
        return kind(Kind.ACCEPTED);
    }

    /**
     * Holds the rejected outcome without an error; set one through {@link #error()}.
     *
     * @return this, for chaining
     */
    public DeliveryState rejected() {
        return kind(Kind.REJECTED);
    }

    /**
     * Holds the released outcome.
     *
     * @return this, for chaining
     */
    public DeliveryState released() {
        return kind(Kind.RELEASED);
    }

    /**
     * Holds the modified outcome; message-annotations may be set through {@link #messageAnnotations()}.
     *
     * @param deliveryFailed whether the delivery-count should be incremented
     * @param undeliverableHere whether the message must not be redelivered to this link
     * @return this, for chaining
     */
    public DeliveryState modified(boolean deliveryFailed, boolean undeliverableHere) {
        kind(Kind.MODIFIED);
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
        return kind(Kind.DECLARED);
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
        Kind k = Kind.ofDescriptor(code);
        if (k == Kind.TRANSACTIONAL) {
            kind(k);
            transactional.read(reader);
            return;
        }
        if (k != null) {
            kind(k);
            decodeFields(reader);
            return;
        }
        throw new UnexpectedTypeException("descriptor " + (code < 0 ? "of another kind" : "0x" + Long.toHexString(code))
                + " is not a delivery-state", reader.valueStart());
    }

    private void decodeFields(AmqpReader reader) {
        enterBody(reader, typeName());
        switch (kind) {
            case RECEIVED:
                reader.nextField();
                requireField(reader, "section-number");
                sectionNumber = reader.getInt();
                reader.nextField();
                requireField(reader, "section-offset");
                sectionOffset = reader.getLong();
                break;
            case REJECTED:
                if (reader.nextField() != FormatCode.NULL) {
                    error.decode(reader);
                }
                break;
            case MODIFIED:
                deliveryFailed = reader.nextField() != FormatCode.NULL && reader.getBoolean();
                undeliverableHere = reader.nextField() != FormatCode.NULL && reader.getBoolean();
                reader.nextField();
                messageAnnotations.read(reader);
                break;
            case DECLARED:
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
            case TRANSACTIONAL:
                transactional.write(writer);
                return;
            default:
                break;
        }
        startFields(writer);
        switch (kind) {
            case RECEIVED:
                uintField(writer, sectionNumber);
                ulongField(writer, sectionOffset);
                break;
            case REJECTED:
                compositeField(writer, error);
                break;
            case MODIFIED:
                flagField(writer, deliveryFailed);
                flagField(writer, undeliverableHere);
                encodedField(writer, messageAnnotations);
                break;
            case DECLARED:
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
        if (kind == Kind.NONE) {
            return "null";
        }
        if (kind == Kind.TRANSACTIONAL) {
            StringBuilder sb = traceStart();
            traceEncoded(sb, "value", transactional);
            return traceEnd(sb);
        }
        StringBuilder sb = traceStart();
        switch (kind) {
            case RECEIVED:
                traceUInt(sb, "section-number", sectionNumber);
                trace(sb, "section-offset", sectionOffset);
                break;
            case REJECTED:
                traceComposite(sb, "error", error);
                break;
            case MODIFIED:
                trace(sb, "delivery-failed", deliveryFailed);
                trace(sb, "undeliverable-here", undeliverableHere);
                traceEncoded(sb, "message-annotations", messageAnnotations);
                break;
            case DECLARED:
                traceBinary(sb, "txn-id", txnId);
                break;
            default:
                break;
        }
        return traceEnd(sb);
    }
}
