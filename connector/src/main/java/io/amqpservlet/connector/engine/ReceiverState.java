package io.amqpservlet.connector.engine;

import java.util.Arrays;

/**
 * What only a receiving link has: how the application takes messages (whole or streamed frame by frame, with
 * auto-credit or not), and the message being received now (its delivery, the bytes assembled so far, whether the
 * rest of it is to be dropped). A sending link has none of it ({@link SenderState} is its counterpart).
 */
final class ReceiverState {
    private static final byte[] NO_BYTES = {};

    private boolean streaming;
    private int autoCredit;
    /** The delivery whose frames are arriving, or null: a message in one frame never is (AMQP 1.0 §2.6.14). */
    private Delivery incoming;
    private byte[] assembly = NO_BYTES;
    private int assembled;
    /** Drop the rest of {@link #incoming}: over the in-flight limit, settled early, or the link ended. */
    private boolean discarding;

    boolean streaming() {
        return streaming;
    }

    void streaming(boolean value) {
        this.streaming = value;
    }

    int autoCreditWindow() {
        return autoCredit;
    }

    void autoCreditWindow(int window) {
        this.autoCredit = window;
    }

    Delivery incoming() {
        return incoming;
    }

    /** Starts (or, with null, ends) the message being received: nothing assembled, nothing discarded yet. */
    void incoming(Delivery d) {
        this.incoming = d;
        this.assembled = 0;
        this.discarding = false;
    }

    boolean discarding() {
        return discarding;
    }

    void discarding(boolean value) {
        this.discarding = value;
    }

    /** Appends payload to the message being assembled; returns the assembly array (grown as needed). */
    byte[] assemble(byte[] payload, int offset, int length) {
        if (assembly.length - assembled < length) {
            assembly = Arrays.copyOf(assembly, Math.max(assembled + length, Math.max(256, assembly.length * 2)));
        }
        System.arraycopy(payload, offset, assembly, assembled, length);
        assembled += length;
        return assembly;
    }

    int assembled() {
        return assembled;
    }

    /** Lets go of the assembly buffer when no message is being received (an idle link, docs/design.md §2). */
    void trimIdle() {
        if (incoming == null && assembled == 0) {
            assembly = NO_BYTES;
        }
    }
}
