package io.amqpservlet.jetty.internal.mapping;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.connector.engine.EngineHandler;
import io.amqpservlet.connector.engine.Link;
import io.amqpservlet.protocol.AllocationBudget;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.DecodeException;
import io.amqpservlet.protocol.message.MessageView;
import io.amqpservlet.protocol.message.MessageWriter;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.http.MetaData;

import java.nio.ByteBuffer;

/**
 * Coverage-guided fuzzing of {@link RequestMapper} (docs/fuzzing.md): any bytes that {@link MessageView}
 * accepts as a message, and well-formed messages with fuzzed fields, are mapped to a Jetty request, on a real
 * receiving link (target {@code /fuzz}) of an acceptor engine. The mapper's contract: either a {@link MetaData.Request} with a method, a target starting with
 * {@code /} and a body, or no request and a status to answer with (400, 505, or 414 and 431 beyond the request
 * header size); a message it cannot read fails with a {@link DecodeException} or an
 * {@link IllegalArgumentException} (text that is not UTF-8), which the connection answers with
 * {@code amqp:decode-error}; nothing else escapes. Memory follows the input
 * ({@link AllocationBudget}).
 */
class RequestMapperFuzzTest {
    private static final Link LINK = receivingLink();

    @FuzzTest(maxDuration = "5m")
    void mapsAnyRequestMessage(byte[] input) {
        MessageView view = new MessageView();
        try {
            view.wrap(input, 0, input.length);
        } catch (DecodeException e) {
            return;
        }
        mapChecked(view, input.length);
    }

    /**
     * Well-formed request messages with fuzzed fields, built with {@link MessageWriter}: most byte inputs fail
     * {@link MessageView#wrap} before the mapper sees them, these all reach it. Subject, to, content-type, the
     * application-properties that become the Host, the version, headers and Content-Length, and the body kind.
     */
    @FuzzTest(maxDuration = "5m")
    void mapsAnyRequestFields(FuzzedDataProvider data) {
        byte[] message;
        try {
            message = requestMessage(data);
        } catch (IllegalArgumentException e) {
            return; // text the writer cannot encode as UTF-8 (a lone surrogate): not a message
        }
        MessageView view = new MessageView();
        try {
            view.wrap(message, 0, message.length);
        } catch (DecodeException e) {
            throw new AssertionError("MessageWriter wrote a message MessageView refuses", e);
        }
        mapChecked(view, message.length);
    }

    private static final String[] METHODS = {"GET", "POST", "PUT", "DELETE", "OPTIONS"};
    private static final String[] PROPERTY_NAMES = {"http:host", "host", "http:request", "content-length",
        "accept", "transfer-encoding", ":path", "x-header"};

    private static byte[] requestMessage(FuzzedDataProvider data) {
        AmqpWriter out = new AmqpWriter(256);
        MessageWriter message = new MessageWriter().wrap(out);
        message.startProperties().messageId(data.consumeLong());
        if (data.consumeBoolean()) {
            message.to(data.consumeString(64));
        }
        message.subject(data.consumeBoolean() ? METHODS[data.consumeInt(0, METHODS.length - 1)]
                : data.consumeString(16));
        if (data.consumeBoolean()) {
            message.replyTo(data.consumeString(32));
        }
        if (data.consumeBoolean()) {
            message.contentType(data.consumeAsciiString(32)); // a symbol: ASCII only
        }
        message.endProperties();
        int properties = data.consumeInt(0, 6);
        if (properties > 0) {
            message.startApplicationProperties();
            for (int i = 0; i < properties; i++) {
                String name = data.consumeBoolean() ? PROPERTY_NAMES[data.consumeInt(0, PROPERTY_NAMES.length - 1)]
                        : data.consumeString(16);
                if (data.consumeBoolean()) {
                    message.put(name, data.consumeLong());
                } else {
                    message.put(name, data.consumeString(48));
                }
            }
            message.endApplicationProperties();
        }
        switch (data.consumeInt(0, 3)) {
            case 0:
                byte[] body = data.consumeBytes(256);
                message.data(body, 0, body.length);
                break;
            case 1:
                message.amqpValue(data.consumeString(64));
                break;
            case 2:
                byte[] binary = data.consumeBytes(64);
                message.amqpValueBinary(binary, 0, binary.length);
                break;
            default:
                break; // no body
        }
        message.end();
        return java.util.Arrays.copyOf(out.array(), out.length());
    }

    private static void mapChecked(MessageView view, int inputLength) {
        MappedRequest[] mapped = new MappedRequest[1];
        AllocationBudget.check("RequestMapper", inputLength, () -> {
            MappedRequest request = new MappedRequest();
            mapped[0] = request;
            try {
                new RequestMapper(false).map(view, LINK, "fuzz-host", "server", 8192, 0L, false, request);
            } catch (DecodeException | IllegalArgumentException e) {
                request.refusedStatus = -1; // the connection answers amqp:decode-error
            }
        });
        check(mapped[0]);
    }

    private static void check(MappedRequest mapped) {
        int status = mapped.refusedStatus;
        MetaData.Request request = mapped.request;
        if (status == -1) {
            return;
        }
        if (status == 0) {
            if (request == null || request.getMethod() == null || request.getMethod().isEmpty()
                    || !request.getHttpURI().getPathQuery().startsWith("/") || mapped.body == null) {
                throw new AssertionError("mapped without a complete request: " + request);
            }
            return;
        }
        if (request != null || (status != HttpStatus.BAD_REQUEST_400
                && status != HttpStatus.HTTP_VERSION_NOT_SUPPORTED_505 && status != HttpStatus.URI_TOO_LONG_414
                && status != HttpStatus.REQUEST_HEADER_FIELDS_TOO_LARGE_431)) {
            throw new AssertionError("refused with " + status + " (" + mapped.refusedReason + ") and request "
                    + request);
        }
    }

    /** The acceptor's end of a link a client attached to {@code /fuzz}, over engines joined in memory. */
    static Link receivingLink() {
        Link[] accepted = new Link[1];
        Engine server = new Engine(new EngineConfig().role(EngineConfig.Role.ACCEPTOR).anonymousAllowed(true),
                new EngineHandler() {
                    @Override
                    public ErrorCondition onLinkAttach(Link link, Attach remoteAttach) {
                        accepted[0] = link;
                        return null;
                    }
                });
        Engine client = new Engine(new EngineConfig().role(EngineConfig.Role.INITIATOR).saslAnonymous(),
                new EngineHandler() { });
        server.start(1_000);
        client.start(1_000);
        pump(client, server);
        client.beginSession().attachSender("requests", "/fuzz");
        pump(client, server);
        if (accepted[0] == null) {
            throw new IllegalStateException("the link to /fuzz was not attached");
        }
        return accepted[0];
    }

    private static void pump(Engine a, Engine b) {
        for (boolean moved = true; moved; ) {
            moved = move(a, b) | move(b, a);
        }
    }

    private static boolean move(Engine from, Engine to) {
        ByteBuffer out = from.beginFlush();
        if (out == null) {
            return false;
        }
        to.ingest(out, 1_000);
        from.endFlush();
        return true;
    }
}
