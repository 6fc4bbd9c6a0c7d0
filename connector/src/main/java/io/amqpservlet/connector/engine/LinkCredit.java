package io.amqpservlet.connector.engine;

/**
 * Link flow control, AMQP 1.0 §2.6.7, for one link in either role. The state is the sender's view
 * (delivery-count, link-credit, available, drain) or the receiver's; delivery-count is a 32-bit serial number.
 *
 * <p>Sender: credit comes from the receiver's flow as {@code link-credit(snd) = delivery-count(rcv) +
 * link-credit(rcv) − delivery-count(snd)}; each message sent advances delivery-count and consumes one credit; when
 * the receiver asks to drain and nothing is left to send, the sender advances delivery-count by the remaining credit
 * and reports back, so the receiver learns its credit is spent (§2.6.7 drain). Receiver: it grants credit and tracks
 * what the sender used; a transfer beyond the granted credit is a violation
 * ({@code amqp:link:transfer-limit-exceeded}).
 *
 * <p>Not thread-safe: owned by the connection's engine.
 */
final class LinkCredit {
    /** The delivery-count our attach announced (sender) or the peer's did (receiver), where counting starts. */
    private int initialDeliveryCount;
    private int deliveryCount;
    private long credit;
    private boolean drain;
    private boolean creditKnown;
    /** Credit taken back ({@link #revoke()}) that the sender may still have used before it saw the flow. */
    private long revokedInFlight;

    /** Starts with the initial-delivery-count from the sender's attach; no credit yet. */
    public LinkCredit(int initialDeliveryCount) {
        this.initialDeliveryCount = initialDeliveryCount;
        this.deliveryCount = initialDeliveryCount;
    }

    /** Resets for reuse with a new link. */
    public void reset(int initialDeliveryCount) {
        this.initialDeliveryCount = initialDeliveryCount;
        this.deliveryCount = initialDeliveryCount;
        this.credit = 0;
        this.drain = false;
        this.creditKnown = false;
        this.revokedInFlight = 0;
    }

    /**
     * Receiver: takes the sender's initial-delivery-count from its attach when that attach answers ours, keeping
     * any credit already granted: the application may grant credit right after attaching, before the answer.
     */
    public void onSenderAttach(int initialDeliveryCount) {
        this.initialDeliveryCount = initialDeliveryCount;
        this.deliveryCount = initialDeliveryCount;
    }

    // ------------------------------------------------------------------------------------------ sender side

    /**
     * Sender: applies the receiver's flow. {@code hasDeliveryCount} is false when the receiver has not yet seen our
     * attach; then its view of delivery-count is our initial one (§2.6.7), and what we sent since used its credit.
     */
    public void onFlowAtSender(boolean hasDeliveryCount, int receiverDeliveryCount, long receiverCredit, boolean drain) {
        int base = hasDeliveryCount ? receiverDeliveryCount : initialDeliveryCount;
        long c = base + receiverCredit - (deliveryCount & 0xFFFFFFFFL);
        // base is a serial number: fold the subtraction modulo 2^32, then reject windows that went negative.
        long folded = (c & 0xFFFFFFFFL);
        this.credit = folded > receiverCredit ? 0 : folded;
        this.drain = drain;
        this.creditKnown = true;
    }

    /** Sender: whether credit allows one more message. */
    public boolean canSend() {
        return credit > 0;
    }

    /** Sender: accounts for a message sent (its first transfer frame); returns the delivery-count before it. */
    public int onSent() {
        if (credit <= 0) {
            throw new IllegalStateException("no link credit");
        }
        credit--;
        return deliveryCount++;
    }

    /**
     * Sender: when the receiver asked to drain and nothing more is available, consumes the remaining credit by
     * advancing delivery-count (§2.6.7) and returns true: the caller must then send a flow with the new
     * delivery-count and zero credit, even if it sent nothing.
     */
    public boolean drainIfIdle(boolean moreAvailable) {
        if (!drain || moreAvailable) {
            return false;
        }
        deliveryCount += (int) credit;
        credit = 0;
        drain = false;
        return true;
    }

    // ------------------------------------------------------------------------------------------ receiver side

    /** Receiver: sets the credit it grants (then send a flow with {@link #deliveryCount()} and this credit). */
    public void grant(long newCredit, boolean drain) {
        if (newCredit < 0 || newCredit > 0xFFFFFFFFL) {
            throw new IllegalArgumentException("credit must be a uint: " + newCredit);
        }
        this.credit = newCredit;
        this.drain = drain;
        this.creditKnown = true;
    }

    /**
     * Receiver: takes back all credit (then send a flow with link-credit 0). AMQP 1.0 §2.6.7 lets a receiver lower
     * credit at any time, but the sender may have used it before the flow reaches it: up to the credit taken back,
     * messages that arrive later are still accepted by {@link #onReceived()}, not a transfer-limit violation.
     */
    public void revoke() {
        revokedInFlight = credit;
        credit = 0;
        drain = false;
        creditKnown = true;
    }

    /**
     * Receiver: accounts for a message the sender had no credit for, when it is taken in to be released rather than
     * treated as a violation ({@code EngineConfig.releaseBeyondCredit}): the sender counted it, so the delivery-count
     * moves on with it, while no credit is spent.
     */
    public void onReceivedBeyondCredit() {
        deliveryCount++;
    }

    /**
     * Receiver: accounts for the first transfer of a new message.
     *
     * @return false when the sender had no credit for it (§2.6.7: a transfer-limit violation)
     */
    public boolean onReceived() {
        if (credit <= 0) {
            if (revokedInFlight > 0) {
                // Sent on credit we took back before the sender saw it (revoke): still within what it was given.
                revokedInFlight--;
                deliveryCount++;
                return true;
            }
            return false;
        }
        credit--;
        deliveryCount++;
        return true;
    }

    /**
     * Receiver: applies the sender's flow, which reports the sender's delivery-count. If the sender advanced it
     * (a drain), the credit between the two counts is spent.
     */
    public void onFlowAtReceiver(int senderDeliveryCount) {
        long spent = SerialNumber.distance(deliveryCount, senderDeliveryCount);
        if (spent > 0 && spent <= credit) {
            credit -= spent;
            deliveryCount = senderDeliveryCount;
        } else if (spent > 0) {
            credit = 0;
            deliveryCount = senderDeliveryCount;
        }
        if (credit == 0) {
            drain = false;
        }
    }

    // ------------------------------------------------------------------------------------------ state

    public int deliveryCount() {
        return deliveryCount;
    }

    /** Link credit as an unsigned 32-bit value. */
    public long credit() {
        return credit;
    }

    public boolean drain() {
        return drain;
    }

    /** Whether a flow has set the credit at least once. */
    public boolean creditKnown() {
        return creditKnown;
    }
}
