package io.amqpservlet.connector.docs;

import io.amqpservlet.connector.engine.Delivery;
import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.connector.engine.EngineHandler;
import io.amqpservlet.connector.engine.Link;
import io.amqpservlet.connector.engine.Session;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.message.MessageView;
import io.amqpservlet.protocol.message.MessageWriter;
import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The example of docs/connector.md, compiled and run. Keep the two in step. */
class ConnectorExampleTest {

    // docs/connector.md: "A responder"
    static final class Responder implements EngineHandler {
        private final MutableBytes replyTo = new MutableBytes();
        private final AmqpWriter response = new AmqpWriter();
        private final MessageWriter messages = new MessageWriter();

        @Override
        public ErrorCondition onLinkAttach(Link link, Attach remoteAttach) {
            if (!link.isSender()) {
                link.autoCredit(100);              // keep 100 requests of credit open
            }
            return null;                            // accept every link
        }

        @Override
        public void onMessage(Link link, Delivery delivery, MessageView request) {
            Engine engine = link.session().engine();
            request.replyTo(replyTo);
            Link replies = engine.replyLink(replyTo.array(), 0, replyTo.length());
            if (replies == null) {
                engine.release(delivery);
                return;
            }
            response.clear();
            messages.wrap(response).startProperties().to(replyTo).subject("200").endProperties().end();
            replies.send(response.array(), 0, response.length(), false);
            engine.accept(delivery);                // settle the request once its response is on its way
        }
    }

    // docs/connector.md: "Driving an engine"
    static void pump(Engine a, Engine b, long nowMillis) {
        boolean moved = true;
        while (moved) {
            moved = false;
            for (Engine[] pair : new Engine[][] {{a, b}, {b, a}}) {
                ByteBuffer out = pair[0].beginFlush();   // everything produced so far, for one gathered write
                if (out != null) {
                    pair[1].ingest(out, nowMillis);      // any slice of the stream will do
                    pair[0].endFlush();
                    moved = true;
                }
            }
        }
    }

    @Test
    void requestAndResponseBetweenTwoEnginesInMemory() {
        Engine server = new Engine(new EngineConfig().role(EngineConfig.Role.ACCEPTOR)
                .plainAuthenticator((authzid, user, password) -> "secret".equals(password) ? user : null),
                new Responder());
        List<String> subjects = new ArrayList<>();
        Engine client = new Engine(new EngineConfig().role(EngineConfig.Role.INITIATOR).saslPlain("alice", "secret"),
                new EngineHandler() {
                    @Override
                    public void onMessage(Link link, Delivery delivery, MessageView response) {
                        subjects.add(response.subjectAsString());
                        link.session().engine().accept(delivery);
                    }
                });
        server.start(0);
        client.start(0);
        pump(client, server, 0);

        Session session = client.beginSession();
        Link replies = session.attachDynamicReceiver("replies");
        replies.autoCredit(10);
        Link requests = session.attachSender("requests", "/orders");
        pump(client, server, 0);

        AmqpWriter request = new AmqpWriter();
        new MessageWriter().wrap(request).startProperties().messageId("1").to("/orders").subject("GET")
                .replyTo(replies.source().address()).endProperties().end();
        requests.send(request.array(), 0, request.length(), false);
        pump(client, server, 0);

        assertEquals(List.of("200"), subjects);
        assertEquals("alice", server.identity());
    }
}
