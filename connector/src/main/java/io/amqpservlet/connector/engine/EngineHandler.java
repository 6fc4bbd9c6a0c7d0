package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.message.MessageView;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import io.amqpservlet.protocol.types.transport.Open;

/**
 * What an {@link Engine} tells its application. Every call comes from the thread that drives the engine
 * ({@code ingest}, {@code tick} or an application call), never concurrently. Objects passed in (performatives,
 * message views, payload arrays) are the engine's reusable instances: valid only during the call; copy what must
 * outlive it. Every method has a default so an application implements only what it uses.
 */
public interface EngineHandler {

    /**
     * The peer's open arrived (acceptor: before ours is sent). Return null to accept, or an error to refuse: the
     * engine then sends open followed by close with that error (AMQP 1.0 §2.4.2).
     *
     * @param engine the engine the open arrived on
     * @param remoteOpen the peer's open, valid during the call
     * @return null to accept, or the error to refuse with
     */
    default ErrorCondition onOpen(Engine engine, Open remoteOpen) {
        return null;
    }

    /**
     * The peer's sasl-init arrived on an acceptor (the first of the connection), before its mechanism runs. Return
     * null to go on, or a reason to refuse the login without looking at its credentials (say the peer's source
     * address has failed too many logins lately): the engine then answers with sasl-outcome {@code sys-temp}
     * (AMQP 1.0 §5.3.3.6: a transient error, the client may try again later), reports
     * {@link #onAuthenticationFailed} with the mechanism and this reason, and ends the transport as after any
     * failed login. Every login passes here once, whatever its mechanism, and then ends in
     * {@link #onAuthenticated}, in {@link #onAuthenticationFailed}, or (when the transport ends first) in
     * {@link #onClosed} without either.
     *
     * @param engine the engine the login started on
     * @param mechanism the mechanism the peer chose, one we offer, or null when it named none we offer
     * @return null to run the mechanism, or the reason to refuse the login with (for the server's log only: the
     *     peer is told no more than the outcome code)
     */
    default String onSaslInit(Engine engine, String mechanism) {
        return null;
    }

    /**
     * SASL finished on an acceptor: the identity is the peer's principal for everything on this connection.
     *
     * @param engine the engine the peer authenticated on
     * @param identity the authenticated identity (the PLAIN user, the EXTERNAL certificate's subject)
     */
    default void onAuthenticated(Engine engine, String identity) {
    }

    /**
     * SASL failed on an acceptor: the peer's credentials were refused, it chose a mechanism we do not offer, or its
     * SASL frames made no sense. The sasl-outcome has been written and the transport ends; {@link #onClosed}
     * follows. The reason is for the server's log only: the peer is told no more than the outcome code.
     *
     * @param engine the engine the login failed on
     * @param mechanism the mechanism the peer chose, or null when it named none we offer
     * @param reason why, such as {@code invalid credentials for alice}
     */
    default void onAuthenticationFailed(Engine engine, String mechanism, String reason) {
    }

    /**
     * The connection ended, once: by the close exchange (the peer's close with its error, or null; our close with
     * ours), by an error the engine found (a protocol violation, a timeout), by a failed handshake, or by the
     * transport's end when the transport says so ({@link Engine#transportClosed()}: then with whichever close went
     * out, or null when the peer dropped the connection without one).
     *
     * @param engine the engine whose connection ended
     * @param error why: the peer's close's error when it sent one, else ours; null for a clean close or a dropped
     *     connection
     */
    default void onClosed(Engine engine, ErrorCondition error) {
    }

    /**
     * A session began at the peer's request. Return null to accept, or an error to refuse (begin, then end).
     *
     * @param session the new session
     * @return null to accept, or the error to refuse with
     */
    default ErrorCondition onSessionBegin(Session session) {
        return null;
    }

    /**
     * A session ended; its links were detached first.
     *
     * @param session the session that ended
     * @param error why, or null: the error this side sent when it ended the session ({@link Session#endedHere()}),
     *     else the peer's, or the peer's close's when the session went with its connection
     */
    default void onSessionEnd(Session session, ErrorCondition error) {
    }

    /**
     * The peer attached a link. The engine has already resolved reply nodes (dynamic sources, temporary queues).
     * Return null to accept, or an error to refuse: the engine attaches with a null terminus and detaches with the
     * error (AMQP 1.0 §2.6.3). For an accepted receiving link the application grants credit with
     * {@link Link#flow(long)} or {@link Link#autoCredit(int)}. Also called when the peer answers a link this side
     * attached (the return value is then ignored), unless the application detached that link before the answer.
     *
     * @param link the new link
     * @param remoteAttach the peer's attach, valid during the call
     * @return null to accept, or the error to refuse with
     */
    default ErrorCondition onLinkAttach(Link link, Attach remoteAttach) {
        return null;
    }

    /**
     * The peer attaches a new link on {@code session}, within the engine's own limits. Return null to go on, or why
     * the session ends instead, with {@code amqp:resource-limit-exceeded}: an application that bounds the memory
     * links take across connections says so here, before the link exists (a refused attach would still make one,
     * kept until the peer's detach; ending the session frees its links).
     *
     * @param session the session the link would be attached on
     * @return null to go on, or the description of the session's end
     */
    default String onLinkAttaching(Session session) {
        return null;
    }

    /**
     * A link ended: by this side's detach or refusal, the peer's detach, or because its session or connection ended.
     *
     * @param link the link that ended
     * @param error why, or null: the error this side sent when it ended the link ({@link Link#endedHere()}), else
     *     the peer's, or that of the session's end or the peer's close the link went with
     */
    default void onLinkDetach(Link link, ErrorCondition error) {
    }

    /**
     * A complete message arrived on a receiving link. {@code message} indexes it in place (over the input buffer
     * for a single-frame message); settle it later with {@link Engine#settle(Delivery, DeliveryState)} unless it
     * arrived settled.
     *
     * @param link the receiving link
     * @param delivery the message's delivery
     * @param message the message, valid during the call
     */
    default void onMessage(Link link, Delivery delivery, MessageView message) {
    }

    /**
     * For a link in streaming mode ({@link Link#streaming(boolean)}): the payload of one transfer frame of a
     * message that spans several, as it arrives, without buffering the message. {@code last} marks the final
     * frame; then settle the delivery as for {@link #onMessage}. If the link ends before the last frame,
     * {@link #onLinkDetach} comes instead (an abort: {@link #onMessageAborted}).
     *
     * @param link the receiving link
     * @param delivery the message's delivery
     * @param payload holds the frame's payload, valid during the call
     * @param offset where the payload starts in {@code payload}
     * @param length the payload's length in bytes
     * @param last whether this is the message's final frame
     */
    default void onMessageChunk(Link link, Delivery delivery, byte[] payload, int offset, int length, boolean last) {
    }

    /**
     * The sender aborted a partly received message (AMQP 1.0 §2.6.14); the delivery is settled and gone.
     *
     * @param link the receiving link
     * @param delivery the aborted delivery
     */
    default void onMessageAborted(Link link, Delivery delivery) {
    }

    /**
     * A message arriving on a receiving link grew past the engine's max-message-size and, as
     * {@link EngineConfig#rejectTooLargeMessages()} asks, was rejected with {@code amqp:link:message-size-exceeded};
     * the rest of it is dropped as it comes, and the link goes on. What the application has of it ends as an aborted
     * message's does: by default this calls {@link #onMessageAborted}.
     *
     * @param link the receiving link
     * @param delivery the rejected delivery
     * @param maxMessageSizeBytes the limit the message passed
     */
    default void onMessageTooLarge(Link link, Delivery delivery, long maxMessageSizeBytes) {
        onMessageAborted(link, delivery);
    }

    /**
     * A sending link received credit, or room in the session window: queued messages were sent as far as they
     * could be.
     *
     * @param link the sending link
     */
    default void onSendable(Link link) {
    }

    /**
     * The peer updated the state or settlement of a delivery we sent.
     *
     * @param link the sending link
     * @param delivery the delivery the peer updated
     */
    default void onDeliveryUpdated(Link link, Delivery delivery) {
    }

    /**
     * A drain request on a sending link was answered: the receiver's credit is used up.
     *
     * @param link the sending link
     */
    default void onDrained(Link link) {
    }
}
