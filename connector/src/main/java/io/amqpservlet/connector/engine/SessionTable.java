package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.types.transport.Begin;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import io.amqpservlet.protocol.types.transport.ErrorConditions;

import java.util.Arrays;

/**
 * The sessions of one connection by channel, in both numberings (ours and the peer's), and the begin exchange that
 * maps one to the other (AMQP 1.0 §2.5.1, §2.7.2): a begin without remote-channel starts a session at the peer's
 * request, one with it answers ours. Channels beyond our channel-max, or already in use, close the connection.
 */
final class SessionTable {
    private final Engine engine;
    // Nothing until the first session, then one channel: most connections have one session (docs/design.md §2).
    private static final Session[] NONE = {};
    private Session[] byLocalChannel = NONE;
    private Session[] byRemoteChannel = NONE;

    SessionTable(Engine engine) {
        this.engine = engine;
    }

    /** The session the peer sends on {@code channel}, or null. */
    Session byRemoteChannel(int channel) {
        return channel < byRemoteChannel.length ? byRemoteChannel[channel] : null;
    }

    /** The peer's begin on {@code channel}: a new session, or the answer to one of ours (AMQP 1.0 §2.7.2). */
    void onBegin(int channel, Begin begin) {
        if (channel > engine.config.channelMax()) {
            engine.lifecycle.connectionError(ErrorConditions.CONNECTION_FRAMING_ERROR, "channel " + channel + " exceeds channel-max "
                    + engine.config.channelMax());
            return;
        }
        if (channel < byRemoteChannel.length && byRemoteChannel[channel] != null) {
            engine.lifecycle.connectionError(ErrorConditions.CONNECTION_FRAMING_ERROR, "begin on channel " + channel + ", already in use");
            return;
        }
        Session s;
        if (begin.hasRemoteChannel()) {
            int local = begin.remoteChannel();
            s = local < byLocalChannel.length ? byLocalChannel[local] : null;
            if (s == null || s.remoteChannel() >= 0) {
                engine.lifecycle.connectionError(ErrorConditions.CONNECTION_FRAMING_ERROR, "begin answers channel " + local
                        + ", where no session waits for one");
                return;
            }
            mapRemoteChannel(channel, s);
            s.onRemoteBegin(begin);
            return;
        }
        int local = freeLocalChannel(engine.lifecycle.remoteChannelMax());
        if (local < 0) {
            engine.lifecycle.connectionError(ErrorConditions.RESOURCE_LIMIT_EXCEEDED, "no channel free within the peer's channel-max");
            return;
        }
        s = create(local);
        mapRemoteChannel(channel, s);
        s.onRemoteBegin(begin);
        ErrorCondition refusal = engine.handler.onSessionBegin(s);
        s.sendBegin();
        if (refusal != null) {
            s.end(refusal);
        }
    }

    /** Every session slot by local channel, for iteration (entries may be null). */
    Session[] all() {
        return byLocalChannel;
    }

    /** The lowest channel not in use within {@code remoteChannelMax}, or -1. */
    int freeLocalChannel(int remoteChannelMax) {
        int max = Math.min(remoteChannelMax, 0xFFFF);
        for (int c = 0; c <= max; c++) {
            if (c >= byLocalChannel.length || byLocalChannel[c] == null) {
                return c;
            }
        }
        return -1;
    }

    /** A new session on our {@code localChannel}. */
    Session create(int localChannel) {
        if (localChannel >= byLocalChannel.length) {
            byLocalChannel = Arrays.copyOf(byLocalChannel, Math.max(localChannel + 1, byLocalChannel.length * 2));
        }
        Session s = new Session(engine, localChannel, engine.config.sessionIncomingWindowFrames(), engine.config.handleMax());
        byLocalChannel[localChannel] = s;
        return s;
    }

    private void mapRemoteChannel(int channel, Session s) {
        if (channel >= byRemoteChannel.length) {
            byRemoteChannel = Arrays.copyOf(byRemoteChannel, Math.max(channel + 1, byRemoteChannel.length * 2));
        }
        byRemoteChannel[channel] = s;
        s.remoteChannel(channel);
    }

    /** Forgets a session that ended on both sides. */
    void remove(Session s) {
        if (s.localChannel() < byLocalChannel.length && byLocalChannel[s.localChannel()] == s) {
            byLocalChannel[s.localChannel()] = null;
        }
        int rc = s.remoteChannel();
        if (rc >= 0 && rc < byRemoteChannel.length && byRemoteChannel[rc] == s) {
            byRemoteChannel[rc] = null;
        }
    }

    /** Pumps every sending link that has messages queued (the output had room again). */
    void pumpAll() {
        for (Session s : byLocalChannel) {
            if (s != null && s.isOpen()) {
                s.outbound().pumpAll();
            }
        }
    }

    /** Tops up the credit of every open receiving link with auto-credit (credit was paused). */
    void replenishCredit() {
        for (Session s : byLocalChannel) {
            if (s != null && s.isOpen()) {
                Link[] links = s.links();
                for (Link l : links) {
                    if (l != null && !l.isSender() && l.isOpen()) {
                        s.replenishAutoCredit(l);
                    }
                }
            }
        }
    }

    /** Lowers the credit of every open receiving link to 0 and tells the peer (AMQP 1.0 §2.6.7). */
    void revokeCredit() {
        for (Session s : byLocalChannel) {
            if (s != null && s.isOpen()) {
                Link[] links = s.links();
                for (Link l : links) {
                    if (l != null && !l.isSender() && l.isOpen()) {
                        l.credit().revoke();
                        s.writeLinkFlow(l, false);
                    }
                }
            }
        }
    }

    /** Every session lets go of what it kept for reuse (see {@link Engine#trimIdle()}). */
    void trimIdle() {
        for (Session s : byLocalChannel) {
            if (s != null) {
                s.trimIdle();
            }
        }
    }

    /** The connection ended: every session goes, without frames. */
    void abandonAll(ErrorCondition error) {
        for (Session s : byLocalChannel) {
            if (s != null) {
                s.abandon(error);
            }
        }
    }

}
