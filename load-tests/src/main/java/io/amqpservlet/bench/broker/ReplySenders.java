package io.amqpservlet.bench.broker;

import io.amqpservlet.connector.engine.Link;
import io.amqpservlet.connector.engine.Session;
import io.amqpservlet.protocol.types.MutableBytes;

/**
 * The responder's senders for a broker without the anonymous relay (RabbitMQ 3.10): one sending link per reply
 * address, attached when an address is first answered and kept for the next answers to it, at most {@code capacity}
 * at once; the least recently used one is detached to make room. The load generator has one reply address per
 * connection, so a run of 16 connections keeps 16 links. Looked up by the address's bytes: nothing allocated once a
 * link is attached.
 */
final class ReplySenders {
    private final Session session;
    private final MutableBytes[] addresses;
    private final Link[] links;
    private final long[] lastUse;
    private int size;
    private long uses;
    private long attached;

    ReplySenders(Session session, int capacity) {
        this.session = session;
        addresses = new MutableBytes[capacity];
        links = new Link[capacity];
        lastUse = new long[capacity];
        for (int i = 0; i < capacity; i++) {
            addresses[i] = new MutableBytes();
        }
    }

    /** The sender to {@code address}: the one kept for it, or a new one (attached now; it queues until credit). */
    Link to(MutableBytes address) {
        int slot = -1;
        for (int i = 0; i < size; i++) {
            if (addresses[i].contentEquals(address)) {
                slot = i;
                break;
            }
        }
        if (slot >= 0 && !links[slot].acceptsMessages()) {
            slot = replace(slot, address); // the broker detached it: attach again
        } else if (slot < 0) {
            slot = size < links.length ? size++ : replace(leastRecentlyUsed(), address);
            if (links[slot] == null) {
                attach(slot, address);
            }
        }
        lastUse[slot] = ++uses;
        return links[slot];
    }

    private int replace(int slot, MutableBytes address) {
        Link old = links[slot];
        if (old != null && !old.isClosed()) {
            old.detach(null, null);
        }
        attach(slot, address);
        return slot;
    }

    private void attach(int slot, MutableBytes address) {
        addresses[slot].set(address);
        String target = address.toString();
        links[slot] = session.attachSender("reply-" + ++attached, target);
    }

    private int leastRecentlyUsed() {
        int oldest = 0;
        for (int i = 1; i < size; i++) {
            if (lastUse[i] < lastUse[oldest]) {
                oldest = i;
            }
        }
        return oldest;
    }
}
