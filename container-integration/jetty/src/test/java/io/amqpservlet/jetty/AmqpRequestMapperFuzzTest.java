package io.amqpservlet.jetty;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.connector.engine.EngineHandler;
import io.amqpservlet.connector.engine.Link;
import io.amqpservlet.protocol.AllocationBudget;
import io.amqpservlet.protocol.codec.DecodeException;
import io.amqpservlet.protocol.message.MessageView;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.http.MetaData;

import java.nio.ByteBuffer;

/**
 * Coverage-guided fuzzing of {@link AmqpRequestMapper} (docs/fuzzing.md): any bytes that {@link MessageView}
 * accepts as a message are mapped to a Jetty request, on a real receiving link (target {@code /fuzz}) of an
 * acceptor engine. The mapper's contract: either a {@link MetaData.Request} with a method, a target starting with
 * {@code /} and a body, or no request and a status to answer with (400, 415, 505); a message it cannot read fails
 * with a {@link DecodeException} or an {@link IllegalArgumentException} (text that is not UTF-8), which the
 * connection answers with {@code amqp:decode-error}; nothing else escapes. Memory follows the input
 * ({@link AllocationBudget}).
 */
class AmqpRequestMapperFuzzTest {
    private static final Link LINK = receivingLink();

    @FuzzTest(maxDuration = "5m")
    void mapsAnyRequestMessage(byte[] input) {
        MessageView view = new MessageView();
        try {
            view.wrap(input, 0, input.length);
        } catch (DecodeException e) {
            return;
        }
        AmqpExchange[] mapped = new AmqpExchange[1];
        AllocationBudget.check("AmqpRequestMapper", input.length, () -> {
            AmqpExchange exchange = new AmqpExchange();
            mapped[0] = exchange;
            try {
                new AmqpRequestMapper(false).map(view, LINK, "fuzz-host", "server", 0L, exchange);
            } catch (DecodeException | IllegalArgumentException e) {
                exchange.rejectStatus = -1; // the connection answers amqp:decode-error
            }
        });
        check(mapped[0]);
    }

    private static void check(AmqpExchange exchange) {
        int status = exchange.rejectStatus;
        MetaData.Request request = exchange.request;
        if (status == -1) {
            return;
        }
        if (status == 0) {
            if (request == null || request.getMethod() == null || request.getMethod().isEmpty()
                    || !request.getHttpURI().getPathQuery().startsWith("/") || exchange.body == null) {
                throw new AssertionError("mapped without a complete request: " + request);
            }
            return;
        }
        if (request != null || (status != HttpStatus.BAD_REQUEST_400 && status != HttpStatus.UNSUPPORTED_MEDIA_TYPE_415
                && status != HttpStatus.HTTP_VERSION_NOT_SUPPORTED_505)) {
            throw new AssertionError("refused with " + status + " (" + exchange.rejectReason + ") and request "
                    + request);
        }
    }

    /** The acceptor's end of a link a client attached to {@code /fuzz}, over engines joined in memory. */
    private static Link receivingLink() {
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
