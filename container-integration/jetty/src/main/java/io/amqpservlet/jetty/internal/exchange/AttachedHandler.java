package io.amqpservlet.jetty.internal.exchange;

import io.amqpservlet.connector.engine.Delivery;
import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.connector.engine.Link;
import io.amqpservlet.connector.engine.Session;
import io.amqpservlet.jetty.internal.attach.AttachedLinks;
import io.amqpservlet.jetty.internal.budget.BudgetShare;
import io.amqpservlet.protocol.message.MessageView;
import io.amqpservlet.protocol.text.Utf8;
import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.messaging.Properties;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import io.amqpservlet.protocol.types.transport.Open;
import org.eclipse.jetty.server.ConnectionMetaData;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.NanoTime;

import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * Serves the requests of a broker's queues on a connection a broker attachment made (docs/attach.md): the links to the
 * broker and their rules are {@link AttachedLinks}'; here they meet the serving path every request takes. A response
 * goes to its reply-to through the broker, and its request is settled only once the broker has settled the response
 * (at-least-once across a gateway crash); a response with no link to go on sends its request back to the queue. At
 * most once (an opt-in), requests and responses are pre-settled and the credit follows the requests being served.
 */
public final class AttachedHandler extends ServingHandler {
    /** At most once, how many times the capacity may be held beyond it before the broker counts as ignoring it. */
    private static final int MOST_HELD_PER_CREDIT = 4;
    private final AttachedLinks links;
    /** Each request is made by its message's user-id, which the broker validated (docs/attach.md, "Who sent it"). */
    private final boolean trustUserId;
    // Engine thread: the last user-id and its authentication, for the next request of the same user.
    private final MutableBytes userId = new MutableBytes();
    private byte[] lastUserId;
    private Request.AuthenticationState lastUser;
    /**
     * At most once, engine thread: requests a broker sent beyond the credit (RabbitMQ 3 overruns it now and then),
     * held until a servlet of the credit's is free. Pre-settled, they cannot be given back as an unsettled one is.
     */
    private final ArrayDeque<Exchange> held = new ArrayDeque<>();

    /**
     * @param requestUser the authentication every request of the attachment is made by, or null for none
     * @param trustUserId each request is made by its message's user-id instead (then {@code requestUser} is null)
     */
    public AttachedHandler(ServingSettings settings, ConnectionMetaData connection, EngineInbox inbox,
                           BudgetShare budget, AttachedLinks links, Request.AuthenticationState requestUser,
                           boolean trustUserId) {
        super(settings, connection, inbox, budget, false);
        this.links = links;
        this.trustUserId = trustUserId;
        authenticatedAs(requestUser);
    }

    /**
     * AMQP 1.0 §3.2.4: user-id is the identity of the user that produced the message. Trusted only when the
     * attachment is told the broker validates it; then a message without one is made by no user, and one that is
     * not UTF-8 names no user either.
     */
    @Override
    Request.AuthenticationState requestUser(MessageView message) {
        if (!trustUserId) {
            return super.requestUser(message);
        }
        if (!message.propertiesField(Properties.USER_ID, userId) || userId.length() == 0) {
            return null;
        }
        byte[] last = lastUserId;
        if (last != null && Arrays.equals(last, 0, last.length, userId.array(), 0, userId.length())) {
            return lastUser;
        }
        Request.AuthenticationState user = Utf8.firstInvalid(userId.array(), 0, userId.length()) >= 0 ? null
                : settings.users().authenticationOfUserId(userId.toString());
        lastUserId = Arrays.copyOf(userId.array(), userId.length());
        lastUser = user;
        return user;
    }

    @Override
    public Request.AuthenticationState authentication(String requestId) {
        if (!trustUserId) {
            return super.authentication(requestId);
        }
        ExchangeDispatcher d = dispatcherIfAny();
        return d == null ? null : d.userOf(requestId);
    }

    @Override
    public void transportFailed(Throwable failure) {
        links.transportFailed(failure);
    }

    @Override
    public ErrorCondition onOpen(Engine engine, Open remoteOpen) {
        budget.opened(); // the attachment's own budget: counted, never refused
        links.opened(engine, remoteOpen, NanoTime.now() / 1_000_000L);
        return null;
    }

    @Override
    public ErrorCondition onLinkAttach(Link link, Attach remoteAttach) {
        return links.linkAttached(link, remoteAttach);
    }

    @Override
    public void onLinkDetach(Link link, ErrorCondition error) {
        super.onLinkDetach(link, error);
        links.linkDetached(link.session().engine(), link, error);
    }

    @Override
    public void onSessionEnd(Session session, ErrorCondition error) {
        links.sessionEnded(session, error);
    }

    @Override
    public void onDeliveryUpdated(Link link, Delivery delivery) {
        links.outcome(link.session().engine(), delivery);
    }

    @Override
    public void onClosed(Engine engine, ErrorCondition error) {
        links.closed(engine, error); // said once, by the reconnection, with the next attempt
    }

    @Override
    void requestArriving(Engine engine) {
        if (links.atMostOnce()) {
            links.topUpCredit(engine, inFlight() + 1);
        } else {
            links.sampleOutstanding(engine);
        }
    }


    /**
     * Every pass: at most once, the credit follows the requests being served (those that came back in this pass, and
     * after a pause of credit for the byte budget), before the pass's output is flushed.
     */
    @Override
    public long tick(Engine engine, long nowMillis) {
        if (links.atMostOnce() && engine.isOpen()) {
            links.topUpCredit(engine, inFlight());
        }
        return links.tick(engine, nowMillis);
    }

    /** Requests being served, and at most once those held back beyond the credit (a graceful stop waits for them). */
    @Override
    public int inFlight() {
        return super.inFlight() + held.size();
    }

    /**
     * At most once, a request beyond the credit waits for a servlet to be free: the credit bounds the servlets. A
     * broker that overruns the credit by {@value #MOST_HELD_PER_CREDIT} times over does not keep to it at all (RabbitMQ
     * 3 overruns it by a few now and then): the connection is made again rather than held requests piling up.
     */
    @Override
    void serveAdmitted(Engine engine, Exchange exchange) {
        if (links.atMostOnce() && (!held.isEmpty() || super.inFlight() >= links.capacity())) {
            if (held.size() >= MOST_HELD_PER_CREDIT * links.capacity()) {
                dispatcher().reusables().release(exchange);
                links.overran(engine, held.size() + 1);
                return;
            }
            held.add(exchange);
            return;
        }
        super.serveAdmitted(engine, exchange);
    }

    @Override
    public void completed(Engine engine, Exchange exchange, boolean transportClosing) {
        super.completed(engine, exchange, transportClosing);
        while (!transportClosing && !held.isEmpty() && super.inFlight() < links.capacity()) {
            super.serveAdmitted(engine, held.poll());
        }
    }

    /** The connection closed: what was held goes unserved (at most once, as a request the gateway held on failure). */
    @Override
    public void connectionClosed() {
        super.connectionClosed();
        Exchange exchange;
        while ((exchange = held.poll()) != null) {
            dispatcher().reusables().release(exchange);
        }
    }

    /** A link to the broker: the relay, or the reply address's sender. */
    @Override
    Link replyRoute(Engine engine, byte[] replyTo) {
        return links.replyLink(replyTo, NanoTime.now() / 1_000_000L);
    }

    /** Credit already bounds what is in flight: the broker holds what waits. */
    @Override
    boolean replyBufferFull(Engine engine, Exchange exchange) {
        return false;
    }

    /**
     * The request is settled when the broker settles the response (docs/attach.md). A timeout's 503 answers the
     * client like any response, so its request is accepted, not released as on the listener: released, the broker
     * would deliver it again and the client would hear twice.
     */
    @Override
    void answered(Engine engine, Link replies, Delivery response, Delivery request, boolean timedOut) {
        if (links.atMostOnce()) {
            // The response went pre-settled: no outcome will come. A broker that sent the request unsettled all the
            // same (it chose mixed) has it settled now.
            engine.accept(request);
        } else if (response != null) {
            links.awaitOutcome(replies, response, request);
        } else if (timedOut) {
            engine.release(request);
        } else {
            engine.accept(request);
        }
    }

    /**
     * The broker holds the response after the request is settled: a durable request's response is durable, or a
     * broker that restarts between the two loses an answer whose request it no longer has.
     */
    @Override
    boolean keepsResponses() {
        return true;
    }

    /**
     * The broker's link is not there now: the request goes back to the queue. A {@code $me} reply-to with no link
     * pair names nothing: rejected, {@code amqp:not-found}.
     */
    @Override
    void unanswerable(Engine engine, Exchange exchange, Delivery request, String address) {
        if (!exchange.request.replyToPaired()) {
            engine.modified(request, true, false);
        } else {
            engine.reject(request, ErrorConditions.NOT_FOUND, "reply-to " + address
                    + " is not a reply node on this connection");
        }
    }
}
