package io.amqpservlet.jetty;

import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.message.MessageWriter;
import io.amqpservlet.protocol.types.DescribedList;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.Begin;
import io.amqpservlet.protocol.types.transport.Disposition;
import io.amqpservlet.protocol.types.transport.Flow;
import io.amqpservlet.protocol.types.transport.Open;
import io.amqpservlet.protocol.types.transport.Role;
import io.amqpservlet.protocol.types.transport.Transfer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A broker a test plays frame by frame, on its own thread, against an attachment: it listens on a loopback port,
 * and {@link #accept} takes the next connection through SASL ANONYMOUS, the open (the broker's own, as the test
 * writes it) and the begin. From there the test reads the attachment's frames and writes whatever the broker it
 * stands for would, however wrong ({@link #peer}), with helpers for what every script needs: the attaches answered,
 * requests sent.
 */
final class ScriptedBroker implements AutoCloseable {
    private final ServerSocket server;
    private final List<Socket> sockets = new ArrayList<>();
    RawAmqpPeer peer;
    /** The gateway's open on the current connection: its max-frame-size, idle-time-out. */
    long gatewayMaxFrameSize;
    /** The hostname the gateway's open on the current connection names, or null for none. */
    String gatewayHostname;
    /** The handles of the gateway's request link (it receives) and of its relay or last reply sender (it sends). */
    int requestHandle = -1;
    int senderHandle = -1;
    /** The target address of the gateway's last sender attach: null for the relay. */
    String senderAddress;
    private int nextDeliveryId;

    ScriptedBroker() throws IOException {
        server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
        server.setSoTimeout(20_000);
    }

    int port() {
        return server.getLocalPort();
    }

    /** Accepts the next connection and answers its SASL, its open with {@code open}, and its begin. */
    ScriptedBroker accept(Open open) throws IOException {
        Socket s = server.accept();
        sockets.add(s);
        peer = new RawAmqpPeer(s);
        Open gatewayOpen = peer.acceptAnonymously();
        gatewayMaxFrameSize = gatewayOpen.maxFrameSize();
        gatewayHostname = gatewayOpen.hostname().isNull() ? null : gatewayOpen.hostname().toString();
        peer.writeFrame(0, open);
        peer.readUntil(Begin.class);
        peer.writeFrame(0, new Begin().remoteChannel(0).nextOutgoingId(0).incomingWindow(100_000)
                .outgoingWindow(100_000));
        requestHandle = -1;
        senderHandle = -1;
        nextDeliveryId = 0;
        return this;
    }

    /** Reads the next attach from the gateway (dropping other frames) and notes its handle; not answered. */
    Attach readAttach() throws IOException {
        Attach a = peer.readUntil(Attach.class);
        if (a.role() == Role.RECEIVER) {
            requestHandle = a.handle();
        } else {
            senderHandle = a.handle();
            senderAddress = a.target().isNull() || a.target().address().isNull() ? null
                    : a.target().address().toString();
        }
        return a;
    }

    /**
     * Answers {@code a} as a broker that serves it: the request link's sender, or the sender's receiver with
     * {@code replyCredit} (none when 0).
     */
    void answer(Attach a, int replyCredit) throws IOException {
        if (a.role() == Role.RECEIVER) {
            peer.writeFrame(0, a.role(Role.SENDER).initialDeliveryCount(0));
        } else {
            int handle = a.handle();
            peer.writeFrame(0, a.role(Role.RECEIVER).clearInitialDeliveryCount());
            if (replyCredit > 0) {
                peer.writeFrame(0, new Flow().nextIncomingId(0).incomingWindow(100_000).nextOutgoingId(nextDeliveryId)
                        .outgoingWindow(100_000).handle(handle).deliveryCount(0).linkCredit(replyCredit));
            }
        }
    }

    /** Reads {@code n} attaches and answers each as {@link #answer} does. */
    void answerAttaches(int n, int replyCredit) throws IOException {
        for (int i = 0; i < n; i++) {
            answer(readAttach(), replyCredit);
        }
    }

    /** Reads frames until a flow on the request link with credit arrives; returns that credit. */
    int awaitRequestCredit() throws IOException {
        while (true) {
            DescribedList frame = peer.readFrame();
            if (frame instanceof Flow f && f.hasHandle() && f.handle() == requestHandle && f.hasLinkCredit()
                    && f.linkCredit() > 0) {
                return f.linkCredit();
            }
        }
    }

    /** Sends one unsettled request on the request link, in one transfer; returns its delivery id. */
    int sendRequest(String replyTo, String sleepMillis) throws IOException {
        byte[] message = request(replyTo, sleepMillis, 1);
        int id = nextDeliveryId++;
        byte[] tag = {(byte) id};
        peer.writeTransfer(0, new Transfer().handle(requestHandle).deliveryId(id).deliveryTag(tag, 0, 1)
                .messageFormat(0), message, message.length);
        return id;
    }

    /**
     * Sends {@code message} as one unsettled request on the request link, in transfers of at most {@code frameBytes}
     * (the head in the first, so the gateway streams it); returns its delivery id.
     */
    int sendRequestInFrames(byte[] message, int frameBytes) throws IOException {
        int id = nextDeliveryId++;
        for (int offset = 0; offset < message.length; offset += frameBytes) {
            int n = Math.min(frameBytes, message.length - offset);
            Transfer t = new Transfer().handle(requestHandle).more(offset + n < message.length);
            if (offset == 0) {
                t.deliveryId(id).deliveryTag(new byte[] {(byte) id}, 0, 1).messageFormat(0);
            }
            peer.writeTransfer(0, t, Arrays.copyOfRange(message, offset, offset + n), n);
        }
        return id;
    }

    /** The delivery id the next request takes. */
    int takeDeliveryId() {
        return nextDeliveryId++;
    }

    /** A POST for /orders with a body of {@code bodyBytes}, a reply-to (none when null) and an optional sleep. */
    static byte[] request(String replyTo, String sleepMillis, int bodyBytes) {
        return request("/orders", replyTo, sleepMillis, bodyBytes);
    }

    /** As {@link #request(String, String, int)}, for the request-target {@code to}. */
    static byte[] request(String to, String replyTo, String sleepMillis, int bodyBytes) {
        AmqpWriter w = new AmqpWriter();
        MessageWriter m = new MessageWriter().wrap(w).startProperties().messageId("scripted").to(to)
                .subject("POST");
        if (replyTo != null) {
            m.replyTo(replyTo);
        }
        m.endProperties();
        if (sleepMillis != null) {
            m.startApplicationProperties().put("x-sleep-ms", sleepMillis).endApplicationProperties();
        }
        m.data(new byte[bodyBytes], 0, bodyBytes).end();
        return w.toByteArray();
    }

    /**
     * When {@code frame} is a response on the gateway's sender {@code handle}: notes its delivery id in
     * {@code responses}, accepts it and returns true; else false.
     */
    boolean acceptResponse(DescribedList frame, int handle, List<Integer> responses) throws IOException {
        if (!(frame instanceof Transfer t && t.handle() == handle && t.hasDeliveryId())) {
            return false;
        }
        responses.add(t.deliveryId());
        Disposition accept = new Disposition().role(Role.RECEIVER).first(t.deliveryId()).settled(true);
        accept.state().accepted();
        peer.writeFrame(0, accept);
        return true;
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : sockets) {
            s.close();
        }
    }
}
