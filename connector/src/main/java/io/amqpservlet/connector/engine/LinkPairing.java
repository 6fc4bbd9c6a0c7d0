package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpType;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.DecodeException;
import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import io.amqpservlet.protocol.types.transport.ErrorConditions;

/**
 * Link pairing (OASIS "AMQP Request-Response Messaging with Link Pairing"): a sending and a receiving link of one
 * session with the same name, each attached with the link property {@code paired = true}, form a pair, a two-way
 * channel between the same two termini. A request sent on one half names the other half as its reply address with
 * {@code reply-to = "$me"} (RabbitMQ 4's AMQP 1.0 clients use this for their management API).
 *
 * <p>The rules, on both roles: an attach asks for pairing with {@code paired = true} among its properties (other
 * properties are ignored); the answering attach echoes it when the answering side pairs, so the initiator can tell a
 * peer that pairs from one that does not. A pair is formed once both halves are attached with the property on both
 * sides. An acceptor refuses the half that cannot join its pair: the other half is on another session, or is
 * attached without the property, or the termini disagree (the halves must join the same node and the same client
 * terminus: the receiving half's target is the sending half's source, and the other way round), all with
 * {@code amqp:precondition-failed}, as the attach is well formed but a condition its acceptance depends on does not
 * hold (AMQP 1.0 §2.8.15); a {@code paired} value that is not a boolean is an {@code amqp:invalid-field}. A half
 * whose partner has not arrived yet is accepted and waits for it. When one half ends, the other stays attached,
 * unpaired until a new half with its name joins it.
 *
 * <p>Attach time only: nothing here runs per message.
 */
final class LinkPairing {
    /** The link property that asks for pairing. */
    static final Symbol PAIRED = Symbol.of("paired");
    /** The attach properties of a half: {@code {paired: true}}, encoded once. */
    private static final byte[] PAIRED_PROPERTIES;

    static {
        AmqpWriter w = new AmqpWriter(16);
        w.startMap();
        w.writeSymbol(PAIRED);
        w.writeBoolean(true);
        w.endMap();
        PAIRED_PROPERTIES = w.toByteArray();
    }

    /** What an attach's properties say about pairing. */
    enum Request {
        /** No {@code paired} property, or {@code paired = false}. */
        NOT_ASKED,
        /** {@code paired = true}. */
        ASKED,
        /** A {@code paired} property that is not a boolean, or properties that cannot be read. */
        INVALID
    }

    /**
     * How far a link has got to being a half of a pair: each step only follows the one before, so a link is never
     * agreed without having asked.
     *
     * <pre>
     *  PLAIN ──our attach carries paired=true──▶ REQUESTED ──both attaches carry it──▶ AGREED
     * </pre>
     *
     * An agreed half is paired ({@link Link#paired()}) while its partner is agreed too and neither has ended.
     */
    enum Stage {
        /** A plain link: our attach does not carry {@code paired = true}. */
        PLAIN,
        /** Our attach carries {@code paired = true}; the peer's has not (yet) agreed. */
        REQUESTED,
        /** Both attaches carry {@code paired = true}: the link is a half, with or without its partner yet. */
        AGREED
    }

    private LinkPairing() {
    }

    /**
     * Reads the attach's properties map for {@code paired}. Properties that are not a map, and keys other than
     * {@code paired}, are ignored (AMQP 1.0 §2.7.3: link properties are for extensions the receiver may not know).
     */
    static Request asked(Attach attach, AmqpReader reader) {
        if (attach.properties().isNull()) {
            return Request.NOT_ASKED;
        }
        try {
            attach.properties().reader(reader);
            if (reader.type() != AmqpType.MAP) {
                return Request.NOT_ASKED;
            }
            reader.enter();
            while (reader.hasNext()) {
                reader.next();
                boolean isPaired = reader.type() == AmqpType.SYMBOL && reader.contentEquals(PAIRED);
                reader.next();
                if (isPaired) {
                    if (reader.type() != AmqpType.BOOLEAN) {
                        return Request.INVALID;
                    }
                    return reader.getBoolean() ? Request.ASKED : Request.NOT_ASKED;
                }
            }
            return Request.NOT_ASKED;
        } catch (DecodeException e) {
            return Request.INVALID;
        }
    }

    /** Puts {@code paired = true} into an attach of ours. */
    static void writeProperties(Attach attach) {
        attach.properties().set(PAIRED_PROPERTIES, 0, PAIRED_PROPERTIES.length);
    }

    /**
     * Whether a half the peer attached (already with its termini) may join a pair; null when it may (its partner may
     * not have arrived yet), else the error to refuse it with, made in {@code error}. Changes nothing.
     */
    static ErrorCondition check(Link half, ErrorCondition error) {
        Session session = half.session();
        Link partner = otherHalf(session, half, false);
        if (partner == null) {
            Session elsewhere = sessionWithOtherHalf(half);
            if (elsewhere != null) {
                return error.clear().condition(ErrorConditions.PRECONDITION_FAILED).description("the other half of "
                        + "link pair " + half.name() + " is attached on channel " + elsewhere.localChannel()
                        + ": both halves of a pair belong to one session");
            }
            return null;
        }
        if (partner.pairing() != Stage.AGREED) {
            return error.clear().condition(ErrorConditions.PRECONDITION_FAILED).description("a link named "
                    + half.name() + " is attached on this session without paired=true, so this one cannot pair with it");
        }
        if (partner.paired() != null) {
            return error.clear().condition(ErrorConditions.PRECONDITION_FAILED).description("link pair " + half.name()
                    + " is already complete");
        }
        Link sending = half.isSender() ? half : partner;
        Link receiving = half.isSender() ? partner : half;
        if (!sameAddress(sending.source().address(), receiving.target().address())) {
            return error.clear().condition(ErrorConditions.PRECONDITION_FAILED).description("link pair " + half.name()
                    + ": the halves name different nodes (" + receiving.target().address() + " and "
                    + sending.source().address() + ")");
        }
        if (!sameAddress(sending.target().address(), receiving.source().address())) {
            return error.clear().condition(ErrorConditions.PRECONDITION_FAILED).description("link pair " + half.name()
                    + ": the halves name different client termini (" + receiving.source().address() + " and "
                    + sending.target().address() + ")");
        }
        return null;
    }

    /** A half has been agreed on both sides: joins it to its partner when the partner is agreed too. */
    static void join(Link half) {
        half.pairing(Stage.AGREED);
        Link partner = otherHalf(half.session(), half, true);
        if (partner != null && partner.paired() == null) {
            half.pairedWith(partner);
            partner.pairedWith(half);
        }
    }

    /** A half ended: its partner stays attached, unpaired. */
    static void leave(Link half) {
        Link partner = half.paired();
        if (partner != null) {
            partner.pairedWith(null);
            half.pairedWith(null);
        }
    }

    /**
     * The attached link of {@code session} with {@code half}'s name and the other role, or null; with
     * {@code agreedOnly}, only one agreed as a half.
     */
    private static Link otherHalf(Session session, Link half, boolean agreedOnly) {
        MutableBytes name = half.name();
        for (Link l : session.links()) {
            if (l != null && l != half && l.isSender() != half.isSender() && !l.state().detachedHere()
                    && (!agreedOnly || l.pairing() == Stage.AGREED) && l.name().contentEquals(name)) {
                return l;
            }
        }
        return null;
    }

    /** Another session of the connection holding an agreed half with {@code half}'s name and the other role. */
    private static Session sessionWithOtherHalf(Link half) {
        for (Session s : half.session().engine().sessions.all()) {
            if (s != null && s != half.session() && otherHalf(s, half, true) != null) {
                return s;
            }
        }
        return null;
    }

    private static boolean sameAddress(MutableBytes a, MutableBytes b) {
        return a.contentEquals(b); // both null is the same (no address on either)
    }
}
