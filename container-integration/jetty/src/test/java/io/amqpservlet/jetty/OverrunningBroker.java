package io.amqpservlet.jetty;

import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.message.MessageWriter;
import io.amqpservlet.protocol.types.DescribedList;
import io.amqpservlet.protocol.types.messaging.Capabilities;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.Begin;
import io.amqpservlet.protocol.types.transport.Close;
import io.amqpservlet.protocol.types.transport.Flow;
import io.amqpservlet.protocol.types.transport.Open;
import io.amqpservlet.protocol.types.transport.Role;
import io.amqpservlet.protocol.types.transport.Transfer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A scripted broker that sends more requests than the credit it was given, pre-settled, all at once: what RabbitMQ
 * 3 does now and then on a smaller scale. One connection: SASL ANONYMOUS, an open offering the anonymous relay, the
 * begin, every attach answered (the request link as its sender, the relay as its receiver with ample credit); at the
 * gateway's first credit on the request link it sends {@code requests} settled requests (to {@code /orders}, each
 * asking the servlet to take {@code sleepMillis}), then counts the responses on the relay.
 */
final class OverrunningBroker implements AutoCloseable {
    private final ServerSocket server;
    private final int requests;
    private final long sleepMillis;
    private final AtomicInteger responses = new AtomicInteger();
    private final AtomicInteger firstCredit = new AtomicInteger(-1);
    private final List<String> failures = new CopyOnWriteArrayList<>();
    private volatile String closeError;
    private volatile Socket socket;

    OverrunningBroker(int requests, long sleepMillis) throws IOException {
        this.requests = requests;
        this.sleepMillis = sleepMillis;
        server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
        Thread t = new Thread(this::serve, "overrunning-broker");
        t.setDaemon(true);
        t.start();
    }

    int port() {
        return server.getLocalPort();
    }

    /** Responses received on the relay. */
    int responses() {
        return responses.get();
    }

    /** The link credit of the gateway's first flow on the request link; -1 before it. */
    int firstCredit() {
        return firstCredit.get();
    }

    /** The condition and description of the gateway's close, or null before it (or for a close without error). */
    String closeError() {
        return closeError;
    }

    /** What went wrong in the script; empty when nothing did. */
    List<String> failures() {
        return List.copyOf(failures);
    }

    private void serve() {
        try (Socket s = server.accept(); RawAmqpPeer peer = new RawAmqpPeer(s)) {
            socket = s;
            peer.acceptAnonymously();
            Open open = new Open().containerId("overrunning-broker");
            open.offeredCapabilities().add(Capabilities.ANONYMOUS_RELAY);
            peer.writeFrame(0, open);
            peer.readUntil(Begin.class);
            peer.writeFrame(0, new Begin().remoteChannel(0).nextOutgoingId(0).incomingWindow(10_000)
                    .outgoingWindow(10_000));
            int requestHandle = -1;
            int received = 0;
            boolean sent = false;
            while (!peer.closedByServer()) {
                DescribedList frame;
                try {
                    frame = peer.readFrame();
                } catch (AssertionError quiet) {
                    continue;
                }
                if (frame instanceof Attach a) {
                    int handle = a.handle();
                    if (a.role() == Role.RECEIVER) {
                        requestHandle = handle; // the gateway receives: this broker is the sender
                        peer.writeFrame(0, a.role(Role.SENDER).initialDeliveryCount(0));
                    } else {
                        peer.writeFrame(0, a.role(Role.RECEIVER).clearInitialDeliveryCount());
                        peer.writeFrame(0, new Flow().nextIncomingId(received).incomingWindow(10_000)
                                .nextOutgoingId(sent ? requests : 0).outgoingWindow(10_000).handle(handle)
                                .deliveryCount(0).linkCredit(10_000));
                    }
                } else if (frame instanceof Flow f && f.hasHandle() && f.handle() == requestHandle && !sent
                        && f.hasLinkCredit() && f.linkCredit() > 0) {
                    firstCredit.set(f.linkCredit());
                    sent = true;
                    peer.clearOutput();
                    for (int i = 0; i < requests; i++) {
                        byte[] message = request(i);
                        byte[] tag = {(byte) i};
                        peer.appendFrame(0, new Transfer().handle(requestHandle).deliveryId(i)
                                .deliveryTag(tag, 0, 1).messageFormat(0).settled(true), message, message.length);
                    }
                    peer.flushWriter();
                } else if (frame instanceof Transfer t) {
                    received++;
                    if (t.hasDeliveryId()) {
                        responses.incrementAndGet();
                    }
                } else if (frame instanceof Close c) {
                    if (c.error() != null && c.error().condition() != null) {
                        closeError = c.error().condition() + " " + c.error().description();
                    }
                    peer.writeFrame(0, new Close());
                    return;
                }
            }
        } catch (IOException | AssertionError e) {
            if (!server.isClosed()) {
                failures.add(String.valueOf(e));
            }
        }
    }

    private byte[] request(int i) {
        AmqpWriter w = new AmqpWriter();
        new MessageWriter().wrap(w).startProperties().messageId("over-" + i).to("/orders").subject("POST")
                .replyTo("replies").endProperties().startApplicationProperties()
                .put("x-sleep-ms", String.valueOf(sleepMillis)).endApplicationProperties().data(new byte[1], 0, 1)
                .end();
        return w.toByteArray();
    }

    @Override
    public void close() throws IOException {
        server.close();
        Socket s = socket;
        if (s != null) {
            s.close();
        }
    }
}
