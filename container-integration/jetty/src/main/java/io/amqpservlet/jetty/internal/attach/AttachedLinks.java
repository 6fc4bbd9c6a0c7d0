package io.amqpservlet.jetty.internal.attach;

import io.amqpservlet.connector.engine.Delivery;
import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.connector.engine.Link;
import io.amqpservlet.connector.engine.Session;
import io.amqpservlet.jetty.internal.log.ErrorsSent;
import io.amqpservlet.jetty.internal.log.PeerLog;
import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.types.messaging.Capabilities;
import io.amqpservlet.protocol.types.messaging.DeliveryState;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import io.amqpservlet.protocol.types.transport.Open;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Set;

/**
 * The links of one connection a broker attachment made to a broker, and the rules that make it a
 * consumer of the broker's request queues rather than a server of its own clients (docs/attach.md):
 * <ul>
 *   <li>once the broker's open arrives, one session with a receiving link on every request address, whose credit is
 *   the attachment's capacity: the engine never lets credit plus unsettled requests pass it, so a busy gateway
 *   takes no more from the queue than it can run (AMQP 1.0 §2.6.7: credit is the receiver's to give);</li>
 *   <li>responses go to each request's reply-to through the broker: on one anonymous-relay sender when the broker
 *   offers {@code ANONYMOUS-RELAY}, else on a sender per reply address (a bounded cache, detached when idle);</li>
 *   <li>a request is settled only once the broker has settled its response: accepted when the broker accepted the
 *   response, modified with delivery-failed (so the broker delivers it again) when it refused it or the reply link
 *   ended first. A gateway that dies holds nothing the broker has not kept;</li>
 *   <li>every attach we make has a deadline: a broker that never answers one (as some do for capabilities they
 *   lack) is logged, and the connection is closed to try again (a request link or the relay) or the reply link
 *   dropped (a reply address).</li>
 * </ul>
 * Every error this side sends the broker, in a close, an end or a detach (or the refusal of an attach), is counted in
 * the attachment's {@link ErrorsSent}; the broker's own are not.
 *
 * <p>Engine thread only, like {@code AttachedHandler}, which calls it.
 */
public final class AttachedLinks {
    private static final Logger LOG = LoggerFactory.getLogger(AttachedLinks.class);

    private final AttachSettings settings;
    private final Reconnection reconnection;
    private final ErrorsSent errorsSent;
    /** The close this side sent with an error is counted already (as it went out, by {@link #end}). */
    private boolean closeCounted;
    private final String brokerName;
    private Session session;
    private final ArrayList<Link> receivers = new ArrayList<>();
    /** When the attaches of the request links and the relay must have been answered; 0 once they were. */
    private long attachDeadlineMillis;
    private Link relay;
    /** Reply senders by address, least recently used first. */
    private final LinkedHashMap<String, ReplySender> senders = new LinkedHashMap<>(16, 0.75f, true);
    private int senderNames;
    /** The reply sender {@link #replyLink} returned last: the one its response is given to, found without a scan. */
    private ReplySender lastSender;
    /** Responses sent and not yet settled by the broker, with the requests they answer. */
    private final Set<PendingReply> pending = Collections.newSetFromMap(new IdentityHashMap<>());
    private final ArrayDeque<PendingReply> freeReplies = new ArrayDeque<>();
    /** The most requests the broker could have had out to us at once: credit granted plus requests unsettled. */
    private int mostOutstanding;
    /** Of the engine's requests received beyond the credit, those already told to the reconnection. */
    private long reportedBeyondCredit;

    /** A reply address's sender and what it still waits for. */
    private static final class ReplySender {
        final Link link;
        final String address;
        long lastUsedMillis;
        long attachDeadlineMillis;
        int unsettled;

        ReplySender(Link link, String address, long nowMillis, long attachTimeoutMillis) {
            this.link = link;
            this.address = address;
            this.lastUsedMillis = nowMillis;
            this.attachDeadlineMillis = nowMillis + attachTimeoutMillis;
        }
    }

    /** A response in flight to the broker: the request it answers, settled when the broker settles the response. */
    private static final class PendingReply {
        Delivery request;
        int requestGeneration;
        Delivery response;
        int responseGeneration;
        ReplySender sender;
    }

    public AttachedLinks(AttachSettings settings, Reconnection reconnection, ErrorsSent errorsSent, String brokerName,
                         long nowMillis) {
        this.settings = settings;
        this.reconnection = reconnection;
        this.errorsSent = errorsSent;
        this.brokerName = brokerName;
        // The whole set-up (SASL, open, then the attaches) has the attach timeout: a broker that stalls in the
        // handshake is given up on as one that never answers an attach.
        this.attachDeadlineMillis = nowMillis + settings.attachTimeoutMillis();
    }

    /** The broker's open arrived: one session, a receiver per request address, the relay if the broker offers it. */
    public void opened(Engine engine, Open remoteOpen, long nowMillis) {
        session = engine.beginSession();
        int credit = settings.credit();
        boolean settled = settings.atMostOnce();
        for (String address : settings.addresses()) {
            // Named for its queue: a message without a to then maps to the queue's address as its request-target.
            Link receiver = session.attachReceiver(address, address, settled);
            receiver.streaming(true);
            if (settled) {
                // Pre-settled requests are not counted in flight by the engine: credit follows the requests served.
                receiver.flow(credit);
            } else {
                // Granted now, sent with our attach's answer: the queue may start delivering at once (§2.6.7).
                receiver.autoCredit(credit);
            }
            receivers.add(receiver);
        }
        if (remoteOpen.offeredCapabilities().contains(Capabilities.ANONYMOUS_RELAY)) {
            relay = session.attachSender("amqp-servlet:replies", null, settled);
        }
        attachDeadlineMillis = nowMillis + settings.attachTimeoutMillis();
        if (LOG.isDebugEnabled()) {
            LOG.debug("{}: open, attaching {}", brokerName, describeLinks());
        }
    }

    /** The links asked for, for the log: {@code orders (credit 4), replies on the anonymous relay}. */
    private String describeLinks() {
        return String.join(", ", settings.addresses()) + " (credit " + settings.credit() + (receivers.size() > 1
                ? " each" : "") + "), replies " + (relay != null ? "on the anonymous relay"
                : "on a sender per reply address");
    }

    /**
     * The broker answered one of our attaches (a refusal, a null terminus, is followed by its detach), or attached a
     * link of its own, which is refused: the attachment consumes the queues it names and answers on links it makes.
     */
    public ErrorCondition linkAttached(Link link, Attach remoteAttach) {
        if (!receivers.contains(link) && link != relay && senderOf(link) == null) {
            return new ErrorCondition().condition(ErrorConditions.NOT_ALLOWED)
                    .description("the gateway attaches the links it uses");
        }
        boolean refused = link.isSender() ? remoteAttach.target().isNull() : remoteAttach.source().isNull();
        if (refused) {
            return null; // onLinkDetach says why
        }
        if (allAnswered()) {
            attachDeadlineMillis = 0;
            reconnection.attached(describeLinks()); // the broker serves us: reconnects start from the shortest delay
        }
        return null;
    }

    private boolean allAnswered() {
        for (int i = 0; i < receivers.size(); i++) {
            if (!receivers.get(i).isOpen()) {
                return false;
            }
        }
        return relay == null || relay.isOpen();
    }

    /**
     * A link ended. A request link or the relay ending ends the connection (the attachment connects again); a reply
     * sender ending fails the responses it still carried, so their requests go back to the queue.
     */
    public void linkDetached(Engine engine, Link link, ErrorCondition error) {
        if (error != null && link.endedHere()) {
            // Ours: a link detached for what the broker sent on it, or a link of the broker's refused.
            errorsSent.sent(ErrorsSent.Scope.LINK, error.condition().toString());
        }
        String why = error == null ? "no error given" : text(error);
        if (receivers.contains(link) || link == relay) {
            // Not while the connection closes: its close ends every link, and that is no news (isOpen is false). Nor
            // while the session ends (it is not open by then): sessionEnded, told next, says why, and a close made
            // now, inside the session's end, would have the engine report that end without the error it carried.
            if (engine.isOpen() && !reconnection.stopped() && link.session().isOpen()) {
                // Closed: the broker's detach ended it. Not yet: this side detached it, for what the broker sent on
                // it (a frame that breaks AMQP's rules), and the error is ours.
                end(engine, link.isClosed() ? "the broker ended link " + link.name() + " (" + why + ")"
                        : "link " + link.name() + " ended here for what the broker sent on it (" + why + ")");
            }
            return;
        }
        for (Iterator<ReplySender> it = senders.values().iterator(); it.hasNext(); ) {
            ReplySender sender = it.next();
            if (sender.link == link) {
                it.remove();
                if (error != null) {
                    // The broker's doing, once per reply address it drops: within the peer-error allowance.
                    long leftOut = settings.peerLog().permit(PeerLog.Kind.PEER_ERROR);
                    if (leftOut >= 0) {
                        LOG.warn("{}: reply link to {} ended: {}{}", brokerName, sender.address, why,
                                PeerLog.leftOut(leftOut));
                    }
                }
                failPending(engine, sender);
                return;
            }
        }
    }

    /**
     * The session ended: the broker ended it (RabbitMQ 3 answers an attach it refuses that way), or this side did for
     * what the broker sent on it (a session error, counted). Every link went with it, so the connection is closed and
     * made again.
     */
    public void sessionEnded(Session ended, ErrorCondition error) {
        if (error != null && ended.endedHere()) {
            errorsSent.sent(ErrorsSent.Scope.SESSION, error.condition().toString());
        }
        Engine engine = ended.engine();
        if (engine.isOpen() && !reconnection.stopped()) {
            String why = error == null ? "no error given" : text(error);
            end(engine, (ended.endedHere() ? "the session ended here for what the broker sent on it ("
                    : "the broker ended the session (") + why + ")");
        }
    }

    /**
     * The connection ended ({@code error}: the broker's close's error, or ours, or why the transport ended). A close
     * this side made has given its reason already; anything else is told to the reconnection for its one line.
     */
    public void closed(Engine engine, ErrorCondition error) {
        if (error == null) {
            return;
        }
        // Ours when it is not the broker's close's; counted when a close carried it (not a transport ended before
        // there was an AMQP connection to close: nothing went to the broker then).
        if (error != engine.remoteError() && engine.closeSent() && !closeCounted) {
            closeCounted = true;
            errorsSent.sent(ErrorsSent.Scope.CONNECTION, error.condition().toString());
        }
        String what = text(error);
        if (engine.remoteError().isNull()) {
            reconnection.ending(what);
            return;
        }
        if (ErrorConditions.CONNECTION_REDIRECT.toString().equals(String.valueOf(error.condition()))) {
            String to = redirect(error);
            what += to == null ? " (names no network-host and port to go to)" : " (to " + to + ")";
        }
        reconnection.ending("the broker closed the connection: " + what);
    }

    /**
     * AMQP 1.0 §2.8.15: a redirect's info names the {@code network-host} and {@code port} to connect to instead, and
     * the {@code hostname} to open there; the reconnection's next attempt goes there. Returns where, as
     * {@code host:port}, or null when the info does not say.
     */
    private String redirect(ErrorCondition error) {
        if (error.info().isNull()) {
            return null;
        }
        String networkHost = null;
        String hostname = null;
        int port = -1;
        try {
            AmqpReader reader = error.info().reader(new AmqpReader());
            reader.enter();
            while (reader.hasNext()) {
                reader.next();
                String key = reader.getStringOrNull();
                if (!reader.hasNext()) {
                    break;
                }
                reader.next();
                if ("network-host".equals(key)) {
                    networkHost = reader.getStringOrNull();
                } else if ("hostname".equals(key)) {
                    hostname = reader.getStringOrNull();
                } else if ("port".equals(key) && !reader.isNull()) {
                    port = reader.getInt();
                }
            }
        } catch (RuntimeException unreadable) {
            return null; // not a map of the fields the spec names: nowhere to go
        }
        if (networkHost == null || networkHost.isEmpty() || port <= 0 || port > 65_535) {
            return null;
        }
        BrokerUri.HostPort to = new BrokerUri.HostPort(networkHost, port);
        reconnection.redirected(to, hostname == null || hostname.isEmpty() ? null : hostname);
        return to.toString();
    }

    /** Any thread: reading or writing failed, or TLS did: the reconnection's line says how. */
    public void transportFailed(Throwable failure) {
        reconnection.failed(failure);
    }

    /** An error condition for the log: {@code amqp:connection:forced the server is shutting down}. */
    private static String text(ErrorCondition error) {
        return error.description().isNull() ? error.condition().toString()
                : error.condition() + " " + error.description();
    }

    /**
     * Closes the connection for {@code why} (the reconnection logs it, once, as it plans the next attempt); the
     * broker is told {@code amqp:connection:forced} with the reason (AMQP 1.0 §2.8.15).
     */
    private void end(Engine engine, String why) {
        reconnection.ending(why);
        boolean closing = !engine.closeSent() && !engine.isDone();
        engine.close(ErrorConditions.CONNECTION_FORCED, why);
        if (closing && engine.closeSent() && !closeCounted) {
            // Counted as it goes out: a broker that drops the socket rather than answer it ends no AMQP connection.
            closeCounted = true;
            errorsSent.sent(ErrorsSent.Scope.CONNECTION, ErrorConditions.CONNECTION_FORCED.toString());
        }
    }

    /** Engine thread: the deadlines of attaches, and idle reply senders; returns when to look again. */
    public long tick(Engine engine, long nowMillis) {
        long next = Long.MAX_VALUE;
        if (attachDeadlineMillis != 0) {
            if (nowMillis >= attachDeadlineMillis) {
                attachDeadlineMillis = 0;
                end(engine, "the broker did not answer " + (session == null
                        ? "the connection's handshake (SASL, open)" : "the attach of " + unansweredLinks())
                        + " within " + settings.attachTimeoutMillis() + " ms");
                return Long.MAX_VALUE;
            }
            next = attachDeadlineMillis;
        }
        for (Iterator<ReplySender> it = senders.values().iterator(); it.hasNext(); ) {
            ReplySender sender = it.next();
            if (!sender.link.isOpen() && sender.attachDeadlineMillis != 0) {
                if (nowMillis >= sender.attachDeadlineMillis) {
                    LOG.error("{}: the broker did not answer the attach of a reply link to {} within {} ms; its "
                            + "responses go back to the queue", brokerName, sender.address,
                            settings.attachTimeoutMillis());
                    it.remove();
                    session.detach(sender.link, null, null);
                    failPending(engine, sender);
                    continue;
                }
                next = Math.min(next, sender.attachDeadlineMillis);
                continue;
            }
            sender.attachDeadlineMillis = 0;
            if (sender.unsettled == 0) {
                long idleEnd = sender.lastUsedMillis + settings.replyLinkIdleTimeoutMillis();
                if (nowMillis >= idleEnd) {
                    it.remove();
                    session.detach(sender.link, null, null);
                } else {
                    next = Math.min(next, idleEnd);
                }
            }
        }
        return next;
    }

    private String unansweredLinks() {
        StringBuilder names = new StringBuilder();
        for (Link link : receivers) {
            if (!link.isOpen()) {
                names.append(names.length() == 0 ? "" : ", ").append("request link ").append(link.source().address());
            }
        }
        if (relay != null && !relay.isOpen()) {
            names.append(names.length() == 0 ? "" : ", ").append("the anonymous relay");
        }
        return names.toString();
    }

    /**
     * The link a response to {@code replyTo} goes on: the relay, or the reply address's sender (attached now if
     * there is none; a response given to it before the broker answers waits on it). Null when the cache of reply
     * senders is full of links that still wait for outcomes, or the broker's handle-max leaves no handle for another
     * link: the request then goes back to the queue.
     */
    public Link replyLink(byte[] replyTo, long nowMillis) {
        if (relay != null) {
            return relay;
        }
        String address = new String(replyTo, StandardCharsets.UTF_8);
        ReplySender sender = senders.get(address);
        if (sender == null) {
            if (senders.size() >= settings.maxReplyLinks() && !evictIdleSender()) {
                return null;
            }
            if (!session.canAttach()) {
                // The broker's handle-max leaves no handle for another link: the request goes back to the queue, and
                // an idle reply sender is let go, so that a later response finds a handle once the broker answers.
                evictIdleSender();
                return null;
            }
            Link link = session.attachSender("amqp-servlet:reply-" + (++senderNames), address,
                    settings.atMostOnce());
            sender = new ReplySender(link, address, nowMillis, settings.attachTimeoutMillis());
            senders.put(address, sender);
        }
        sender.lastUsedMillis = nowMillis;
        lastSender = sender;
        return sender.link;
    }

    /** Detaches the least recently used reply sender that waits for nothing; false when every one waits. */
    private boolean evictIdleSender() {
        for (Iterator<ReplySender> it = senders.values().iterator(); it.hasNext(); ) {
            ReplySender sender = it.next();
            if (sender.unsettled == 0) {
                it.remove();
                session.detach(sender.link, null, null);
                return true;
            }
        }
        return false;
    }

    /**
     * The response to {@code request} was given to {@code replyLink} as {@code response}: the request is settled
     * when the broker settles the response ({@link #outcome}).
     */
    public void awaitOutcome(Link replyLink, Delivery response, Delivery request) {
        PendingReply p = freeReplies.poll();
        if (p == null) {
            p = new PendingReply();
        }
        p.request = request;
        p.requestGeneration = request.generation();
        p.response = response;
        p.responseGeneration = response.generation();
        p.sender = replyLink == relay ? null : senderOf(replyLink);
        if (p.sender != null) {
            p.sender.unsettled++;
        }
        response.attachment(p);
        pending.add(p);
    }

    private ReplySender senderOf(Link link) {
        ReplySender last = lastSender;
        if (last != null && last.link == link) {
            return last;
        }
        for (ReplySender sender : senders.values()) {
            if (sender.link == link) {
                return sender;
            }
        }
        return null;
    }

    /**
     * The broker updated a response we sent: once it settled it (or gave a terminal outcome), the request it answers
     * is settled: accepted when the response was accepted (a timeout's 503 too: the client has its answer, so the
     * broker must not deliver the request again), else modified with delivery-failed so that the broker delivers the
     * request again.
     */
    public void outcome(Engine engine, Delivery response) {
        if (!(response.attachment() instanceof PendingReply p) || p.response != response
                || p.responseGeneration != response.generation()) {
            return;
        }
        DeliveryState state = response.remoteState();
        boolean terminal = state.isOutcome();
        if (!terminal && !response.remotelySettled()) {
            return; // received-state only: wait for the outcome
        }
        response.attachment(null);
        if (!response.remotelySettled()) {
            engine.settle(response, state); // our side too (AMQP 1.0 §3.4: the receiver settles first here)
        }
        boolean accepted = state.kind() == DeliveryState.Kind.ACCEPTED;
        if (!accepted && LOG.isDebugEnabled()) {
            LOG.debug("{}: the broker did not accept a response ({}); its request goes back to the queue",
                    brokerName, state);
        }
        settleRequest(engine, p, accepted);
        sampleOutstanding(engine);
    }

    private void settleRequest(Engine engine, PendingReply p, boolean responseAccepted) {
        pending.remove(p);
        if (p.sender != null) {
            p.sender.unsettled--;
        }
        Delivery request = p.request;
        if (request.link() != null && request.generation() == p.requestGeneration) {
            if (!responseAccepted) {
                engine.modified(request, true, false); // the broker may deliver it again, here or elsewhere
            } else {
                engine.accept(request);
            }
        }
        p.request = null;
        p.response = null;
        p.sender = null;
        freeReplies.offer(p);
    }

    /** A reply sender ended with responses the broker had not settled: their requests go back to the queue. */
    private void failPending(Engine engine, ReplySender sender) {
        if (sender.unsettled == 0) {
            return;
        }
        ArrayList<PendingReply> failed = new ArrayList<>();
        for (PendingReply p : pending) {
            if (p.sender == sender) {
                failed.add(p);
            }
        }
        for (PendingReply p : failed) {
            Delivery response = p.response;
            if (response.link() != null && response.generation() == p.responseGeneration) {
                response.attachment(null);
            }
            settleRequest(engine, p, false);
        }
    }

    /** Whether requests and responses are pre-settled: nothing waits for an outcome. */
    public boolean atMostOnce() {
        return settings.atMostOnce();
    }

    /**
     * At most once, engine thread: the broker sent {@code beyond} pre-settled requests beyond the capacity while the
     * servlets were full, several times the capacity: it does not keep to the credit, and the connection is made
     * again (the requests it overran with are lost, as at most once a failing connection's are).
     */
    public void overran(Engine engine, int beyond) {
        if (engine.isOpen() && !reconnection.stopped()) {
            end(engine, "the broker sent " + beyond + " requests beyond the credit of " + capacity());
        }
    }

    /** {@return the requests the credit lets the servlets serve at once: the credit per request address} */
    public int capacity() {
        return settings.credit() * Math.max(1, settings.addresses().size());
    }

    /**
     * At most once, engine thread, as requests arrive and as they come back from the servlets: keeps each request
     * link's credit at the credit less the requests being served ({@code serving}), given back a quarter of the credit
     * at a time (a flow per request would cost the broker a delivery round per request).
     */
    public void topUpCredit(Engine engine, int serving) {
        int credit = settings.credit();
        int want = Math.max(0, credit - serving);
        for (int i = 0; i < receivers.size(); i++) {
            Link receiver = receivers.get(i);
            if (receiver.isOpen() && want - receiver.linkCredit() >= Math.max(1, credit / 4)) {
                receiver.flow(want);
            }
        }
        sampleOutstanding(engine, serving);
    }

    /**
     * Engine thread: notes credit plus unsettled requests now (called as each request arrives and as each is
     * settled, the moments that number can change by our doing), for the attachment's {@code getMostOutstanding}.
     */
    public void sampleOutstanding(Engine engine) {
        sampleOutstanding(engine, 0);
    }

    /** As {@link #sampleOutstanding(Engine)}, with {@code serving} pre-settled requests being served besides. */
    private void sampleOutstanding(Engine engine, int serving) {
        long beyond = engine.receivedBeyondCredit();
        if (beyond != reportedBeyondCredit) {
            reconnection.beyondCredit(beyond - reportedBeyondCredit);
            reportedBeyondCredit = beyond;
        }
        long outstanding = engine.unsettledIncoming() + serving;
        for (int i = 0; i < receivers.size(); i++) {
            outstanding += receivers.get(i).linkCredit();
        }
        if (outstanding > mostOutstanding) {
            mostOutstanding = (int) outstanding;
            reconnection.outstanding(mostOutstanding);
        }
    }

    public String brokerName() {
        return brokerName;
    }
}
