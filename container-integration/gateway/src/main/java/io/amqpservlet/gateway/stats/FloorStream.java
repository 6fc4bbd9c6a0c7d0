package io.amqpservlet.gateway.stats;

import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.HttpChannel;
import org.eclipse.jetty.server.HttpStream;
import org.eclipse.jetty.util.Callback;

import java.nio.ByteBuffer;

/**
 * One request at a time through Jetty's {@code HttpChannel} with no wire: the least a connector can do. The request
 * body is there from the start (one last chunk over a view of the shared body bytes); every send completes at once
 * and its bytes are dropped (only the status and the number of body bytes are kept, to check the answer); the channel
 * is recycled when Jetty says the request is done ({@link #succeeded()}), as a keep-alive connection reuses its
 * channel. A request is served on the calling thread: {@link #serve} runs the handler tree inline and, for a servlet
 * that answers before it returns (the demo's {@code /echo}), finds the request complete when it returns.
 *
 * <p>Per request this allocates what any connector must hand Jetty: the caller's {@code MetaData.Request} and one
 * {@code Content.Chunk} (Jetty releases it, so it cannot be reused). Everything else Jetty and the servlet allocate.
 */
final class FloorStream implements HttpStream {
    private final FloorConnection connection;
    private final String id;
    /** This stream's view of the shared body bytes, rewound for each request. */
    private final ByteBuffer body;
    private HttpChannel channel;
    private boolean bodyRead;
    private boolean committed;
    private boolean completed;
    private Throwable failure;
    private int status;
    private long responseBodyBytes;
    private long idleTimeoutMillis;

    FloorStream(FloorConnection connection, String id, ByteBuffer body) {
        this.connection = connection;
        this.id = id;
        this.body = body.duplicate();
    }

    /**
     * Serves {@code request} on this thread; returns null when it completed with a response, else why not
     * ({@code "not completed inline"} for a servlet that went asynchronous, the failure otherwise).
     */
    String serve(MetaData.Request request) {
        if (channel == null) {
            channel = connection.newChannel();
        }
        body.clear();
        bodyRead = false;
        committed = false;
        completed = false;
        failure = null;
        status = 0;
        responseBodyBytes = 0;
        channel.initialize();
        channel.setHttpStream(this);
        Runnable task = channel.onRequest(request);
        task.run();
        if (!completed) {
            channel = null; // it may still complete later, on another thread: never reuse it
            return "not completed inline";
        }
        if (failure != null) {
            channel = null;
            return "failed: " + failure.getClass().getSimpleName();
        }
        return null;
    }

    /** The status of the last response (0 when none was committed). */
    int status() {
        return status;
    }

    /** Response body bytes of the last request. */
    long responseBodyBytes() {
        return responseBodyBytes;
    }

    @Override
    public String getId() {
        return id;
    }

    @Override
    public Content.Chunk read() {
        if (bodyRead) {
            return Content.Chunk.EOF;
        }
        bodyRead = true;
        return Content.Chunk.from(body, true);
    }

    @Override
    public void demand() {
        // The body is always there: content is available at once.
        Runnable onContent = channel.onContentAvailable();
        if (onContent != null) {
            onContent.run();
        }
    }

    @Override
    public void prepareResponse(HttpFields.Mutable headers) {
        // no wire, nothing to add
    }

    @Override
    public void send(MetaData.Request request, MetaData.Response response, boolean last, ByteBuffer content,
                     Callback callback) {
        if (response != null) {
            committed = true;
            status = response.getStatus();
        }
        if (content != null) {
            responseBodyBytes += content.remaining();
            content.position(content.limit()); // as a write would leave it
        }
        callback.succeeded();
    }

    @Override
    public Runnable cancelSend(Throwable cause, Callback appCallback) {
        // Sends complete inside send(): none is ever pending, so only the application's callback is left to fail.
        return () -> appCallback.failed(cause);
    }

    @Override
    public long getIdleTimeout() {
        return idleTimeoutMillis;
    }

    @Override
    public void setIdleTimeout(long idleTimeoutMs) {
        this.idleTimeoutMillis = idleTimeoutMs;
    }

    @Override
    public boolean isCommitted() {
        return committed;
    }

    @Override
    public Throwable consumeAvailable() {
        return HttpStream.consumeAvailable(this, connection.getHttpConfiguration());
    }

    @Override
    public void succeeded() {
        channel.recycle();
        completed = true;
    }

    @Override
    public void failed(Throwable x) {
        failure = x;
        completed = true;
    }
}
