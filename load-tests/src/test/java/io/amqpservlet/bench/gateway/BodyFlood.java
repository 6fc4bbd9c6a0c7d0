package io.amqpservlet.bench.gateway;

import org.apache.qpid.protonj2.client.Client;
import org.apache.qpid.protonj2.client.Connection;
import org.apache.qpid.protonj2.client.ConnectionOptions;
import org.apache.qpid.protonj2.client.DeliveryState;
import org.apache.qpid.protonj2.client.Message;
import org.apache.qpid.protonj2.client.OutputStreamOptions;
import org.apache.qpid.protonj2.client.Sender;
import org.apache.qpid.protonj2.client.StreamSender;
import org.apache.qpid.protonj2.client.StreamSenderMessage;
import org.apache.qpid.protonj2.client.StreamTracker;
import org.apache.qpid.protonj2.client.Tracker;

import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Requests with bodies from one local address (such as 127.0.0.2), sent by a real AMQP client, protonj2-client:
 * connections that each send many requests whose bodies come whole (one transfer frame each, as fast as credit
 * comes), or uploads whose bodies stream in (many transfer frames), each on a session of its own. It tells what became
 * of them as the client sees it: released (the server's "not now", AMQP 1.0 §3.4.5), accepted, or not settled yet
 * (the servlet has the request: a request is settled when its response has been sent).
 */
final class BodyFlood implements AutoCloseable {
    private static final int BLOCK_BYTES = 64 * 1024;

    private final String localAddress;
    private final int port;
    private final Client client = Client.create();
    private final List<Connection> connections = new ArrayList<>();
    private final List<Tracker> whole = new ArrayList<>();
    private final List<Future<String>> uploads = new ArrayList<>();
    private ExecutorService uploaders;
    /** Requests the whole-body run could not send: no credit came for them while it sent. */
    int notSent;

    BodyFlood(String localAddress, int port) {
        this.localAddress = localAddress;
        this.port = port;
    }

    private Connection connect() throws Exception {
        ConnectionOptions options = new ConnectionOptions();
        options.transportOptions().localAddress(localAddress);
        Connection c = client.connect("127.0.0.1", port, options);
        connections.add(c);
        c.openFuture().get(10, TimeUnit.SECONDS);
        return c;
    }

    /**
     * Opens {@code connectionCount} connections with a sender each to {@code target} and sends on each, in turn, up to
     * {@code perConnection} POSTs with a body of {@code bodyBytes} (one data section), each as soon as its sender has
     * credit, for at most {@code sendMillis}, or until the server releases requests and no sender has credit (its
     * byte budget is used up: it grants none until bodies are given back); what is left is not sent
     * ({@link #notSent}).
     *
     * @return the requests sent
     */
    int sendWhole(String target, int connectionCount, int perConnection, int bodyBytes, long sendMillis)
            throws Exception {
        List<Sender> senders = new ArrayList<>();
        for (int i = 0; i < connectionCount; i++) {
            Sender s = connect().openSender(target);
            s.openFuture().get(10, TimeUnit.SECONDS);
            senders.add(s);
        }
        byte[] body = new byte[bodyBytes];
        int[] sent = new int[connectionCount];
        int total = connectionCount * perConnection;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(sendMillis);
        while (whole.size() < total && System.nanoTime() < deadline) {
            boolean any = false;
            for (int i = 0; i < connectionCount; i++) {
                if (sent[i] < perConnection) {
                    Tracker t = senders.get(i).trySend(Message.create(body).subject("POST"));
                    if (t != null) {
                        whole.add(t);
                        sent[i]++;
                        any = true;
                    }
                }
            }
            if (!any) {
                if (wholeSettled(DeliveryState.Type.RELEASED) > 0) {
                    break; // the server releases requests and grants no credit: its budget is used up
                }
                Thread.sleep(5); // no sender has credit now: the load waits for some, as a client would
            }
        }
        notSent = total - whole.size();
        return whole.size();
    }

    /** Whole-body requests settled by the server with {@code type}. */
    int wholeSettled(DeliveryState.Type type) {
        int n = 0;
        for (Tracker t : whole) {
            n += t.remoteSettled() && t.remoteState() != null && t.remoteState().getType() == type ? 1 : 0;
        }
        return n;
    }

    /** Whole-body requests not settled by the server yet: the servlet holds them (or they are still on their way). */
    int wholeUnsettled() {
        int n = 0;
        for (Tracker t : whole) {
            n += t.remoteSettled() ? 0 : 1;
        }
        return n;
    }

    /**
     * Opens {@code connectionCount} connections and on each {@code sessionsEach} stream senders to {@code target}
     * (protonj2 gives each a session of its own), and starts on every one an upload of {@code length} bytes, written in
     * blocks of 64 KiB, on a thread of its own: the thread waits wherever the server's window makes it wait.
     */
    void startUploads(String target, int connectionCount, int sessionsEach, int length) throws Exception {
        List<StreamSender> senders = new ArrayList<>();
        for (int i = 0; i < connectionCount; i++) {
            Connection c = connect();
            for (int j = 0; j < sessionsEach; j++) {
                StreamSender s = c.openStreamSender(target);
                s.openFuture().get(10, TimeUnit.SECONDS);
                senders.add(s);
            }
        }
        uploaders = Executors.newFixedThreadPool(senders.size(), r -> {
            Thread t = new Thread(r, "upload-from-" + localAddress);
            t.setDaemon(true);
            return t;
        });
        for (StreamSender s : senders) {
            uploads.add(uploaders.submit(() -> upload(s, length)));
        }
    }

    private static String upload(StreamSender sender, int length) {
        try {
            StreamSenderMessage message = sender.beginMessage();
            message.subject("POST");
            byte[] block = new byte[BLOCK_BYTES];
            try (OutputStream out = message.body(new OutputStreamOptions().bodyLength(length))) {
                for (int at = 0; at < length; at += block.length) {
                    out.write(block, 0, Math.min(block.length, length - at));
                }
            }
            StreamTracker tracker = message.tracker();
            tracker.awaitSettlement(60, TimeUnit.SECONDS);
            return tracker.remoteState() == null ? "unsettled" : tracker.remoteState().getType().name();
        } catch (Exception e) {
            return "failed: " + e;
        }
    }

    /** Uploads that ended with {@code outcome} ({@code RELEASED}, {@code ACCEPTED}, or {@code failed: ...}). */
    int uploadsEnded(String outcome) {
        int n = 0;
        for (Future<String> f : uploads) {
            n += f.isDone() && outcome(f).startsWith(outcome) ? 1 : 0;
        }
        return n;
    }

    /** A finished upload's outcome ({@link #upload} reports its failures as outcomes: it throws nothing). */
    private static String outcome(Future<String> done) {
        try {
            return done.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "failed: interrupted";
        } catch (ExecutionException e) {
            return "failed: " + e.getCause();
        }
    }

    /** Uploads still going: written into the server's window, or waiting for it to open. */
    int uploadsGoing() {
        int n = 0;
        for (Future<String> f : uploads) {
            n += f.isDone() ? 0 : 1;
        }
        return n;
    }

    int uploadCount() {
        return uploads.size();
    }

    int connectionCount() {
        return connections.size();
    }

    @Override
    public void close() {
        if (uploaders != null) {
            uploaders.shutdownNow();
        }
        client.close(); // closes its connections
    }
}
