package io.amqpservlet.protocol.codec;

/**
 * Walks encoded AMQP values depth first and reports each one to an {@link AmqpHandler}: a visitor on top of the
 * {@link AmqpReader} cursor. The walk is a loop over the reader's own nesting stack ({@link AmqpReader#enter()},
 * {@link AmqpReader#exit()}), not a recursion, so a hostile nesting depth costs no Java stack: it is bounded by
 * {@link DecoderLimits#maxDepth()} like any other read. Nothing is allocated per value.
 *
 * <p>Every size is checked as the reader checks it; a malformed encoding ends the walk with the reader's
 * {@link DecodeException}, after the handler has seen the values before the fault. Leaving a compound checks
 * that its elements used exactly the bytes it declared.
 *
 * <pre>{@code
 * AmqpScanner scanner = new AmqpScanner();          // once, reused
 * Summer summer = new Summer();                     // see AmqpHandler
 * scanner.scan(bytes, 0, bytes.length, summer);     // every value in the buffer
 * long total = summer.sum;
 * }</pre>
 *
 * A scanner is not thread-safe; one per connection or thread, like the reader it drives.
 */
public final class AmqpScanner {
    private final AmqpReader reader;

    /** A scanner with its own reader and {@link DecoderLimits#DEFAULT}. */
    public AmqpScanner() {
        this(new AmqpReader());
    }

    /**
     * A scanner that drives {@code reader} (for example one with other limits, or one already positioned).
     *
     * @param reader the reader the scanner moves
     */
    public AmqpScanner(AmqpReader reader) {
        this.reader = reader;
    }

    /** {@return the reader this scanner moves, which handlers get as their cursor} */
    public AmqpReader reader() {
        return reader;
    }

    /**
     * Walks every value in {@code bytes[offset, offset + length)}.
     *
     * @param bytes holds the bytes to scan
     * @param offset where they start in {@code bytes}
     * @param length their length in bytes
     * @param handler told about each value
     */
    public void scan(byte[] bytes, int offset, int length, AmqpHandler handler) {
        reader.wrap(bytes, offset, length);
        walk(handler, false);
    }

    /**
     * Walks every value left at the reader's current level: to the end of the input at top level, or the
     * remaining elements of the compound the reader is in (which stays open).
     *
     * @param handler told about each value
     */
    public void scanRemaining(AmqpHandler handler) {
        walk(handler, false);
    }

    /**
     * Walks exactly one value, the next one at the reader's current level, with everything inside it.
     *
     * @param handler told about each value
     * @throws IllegalStateException when there is no next value (check {@link AmqpReader#hasNext()})
     */
    public void scanNext(AmqpHandler handler) {
        walk(handler, true);
    }

    private void walk(AmqpHandler handler, boolean oneValue) {
        AmqpReader r = reader;
        int base = r.depth();
        if (oneValue) {
            r.next();
            visit(handler);
        }
        while (true) {
            if (r.hasNext()) {
                if (oneValue && r.depth() == base) {
                    return;
                }
                r.next();
                visit(handler);
            } else {
                if (r.depth() == base) {
                    return;
                }
                int container = r.containerCode();
                r.exit();
                end(handler, container);
            }
        }
    }

    /** Reports the reader's current value, and enters it if it is a compound the handler descends into. */
    private void visit(AmqpHandler handler) {
        AmqpReader r = reader;
        boolean descend;
        switch (r.type()) {
            case LIST:
                descend = handler.onListStart(r);
                break;
            case MAP:
                descend = handler.onMapStart(r);
                break;
            case ARRAY:
                descend = handler.onArrayStart(r);
                break;
            case DESCRIBED:
                descend = handler.onDescribedStart(r);
                break;
            default:
                handler.onScalar(r);
                return;
        }
        if (descend) {
            r.enter();
        }
    }

    private void end(AmqpHandler handler, int containerCode) {
        AmqpReader r = reader;
        switch (containerCode) {
            case FormatCode.LIST0:
            case FormatCode.LIST8:
            case FormatCode.LIST32:
                handler.onListEnd(r);
                return;
            case FormatCode.MAP8:
            case FormatCode.MAP32:
                handler.onMapEnd(r);
                return;
            case FormatCode.ARRAY8:
            case FormatCode.ARRAY32:
                handler.onArrayEnd(r);
                return;
            default:
                handler.onDescribedEnd(r);
        }
    }
}
