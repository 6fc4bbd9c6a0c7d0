package io.amqpservlet.bench.engine;

/**
 * What the engine benchmark moves from a sender to a receiver, the same bytes and rules for every engine: the
 * receiver grants credit {@value #CREDIT_BATCH} messages at a time, each time the sender has used the last batch
 * up, and the sender sends as fast as that credit allows.
 */
enum Workload {
    /** The seed's ping-pong: empty messages sent pre-settled (at most once), no dispositions. */
    PRESETTLED("presettled", "0 B presettled, credit 64", 0, true),
    /** 100-byte messages sent unsettled; the receiver accepts and settles each, so a disposition flows back. */
    UNSETTLED("unsettled", "100 B unsettled, accepted", 100, false);

    /** Messages per credit grant. */
    static final int CREDIT_BATCH = 64;

    final String key;
    final String label;
    final boolean presettled;
    private final int messageBytes;

    Workload(String key, String label, int messageBytes, boolean presettled) {
        this.key = key;
        this.label = label;
        this.messageBytes = messageBytes;
        this.presettled = presettled;
    }

    /**
     * The encoded message: nothing for an empty message, otherwise one data section (AMQP 1.0 §3.2.6, descriptor
     * 0x75, vbin8) whose whole encoding is {@code messageBytes} long, so every engine carries the same payload.
     */
    byte[] message() {
        byte[] m = new byte[messageBytes];
        if (messageBytes > 0) {
            int dataBytes = messageBytes - 5;
            m[0] = 0x00;
            m[1] = 0x53;
            m[2] = 0x75;
            m[3] = (byte) 0xa0;
            m[4] = (byte) dataBytes;
            for (int i = 5; i < m.length; i++) {
                m[i] = (byte) ('a' + i % 26);
            }
        }
        return m;
    }
}
