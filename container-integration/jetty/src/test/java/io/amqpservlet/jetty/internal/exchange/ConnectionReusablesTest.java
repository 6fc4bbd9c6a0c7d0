package io.amqpservlet.jetty.internal.exchange;

import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.connector.engine.EngineHandler;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** What a connection keeps for reuse goes once it has served nothing for a while, however its passes fell. */
class ConnectionReusablesTest {
    private final Engine engine = new Engine(new EngineConfig().role(EngineConfig.Role.ACCEPTOR)
            .anonymousAllowed(true), new EngineHandler() { });

    @Test
    void keptObjectsGoAfterTheIdleTimeEvenWhenNoPassSawARequestBeingServed() {
        // The requests were taken, served on pool threads and given back between two passes: no pass saw one busy.
        ConnectionReusables reusables = new ConnectionReusables();
        reusables.release(reusables.exchange());
        assertEquals(1, reusables.kept());

        long trimAt = reusables.trimWhenIdle(10_000, false, engine);
        assertEquals(10_000 + ConnectionReusables.TRIM_AFTER_IDLE_MILLIS, trimAt, "a pass to trim is asked for");
        assertEquals(1, reusables.kept(), "kept while requests may follow");
        assertEquals(Long.MAX_VALUE, reusables.trimWhenIdle(trimAt, false, engine));
        assertEquals(0, reusables.kept());
        assertEquals(Long.MAX_VALUE, reusables.trimWhenIdle(trimAt + 60_000, false, engine), "nothing to trim since");
    }

    @Test
    void keptObjectsStayWhileRequestsAreServedAndGoAfterTheLast() {
        ConnectionReusables reusables = new ConnectionReusables();
        reusables.release(reusables.exchange());
        assertEquals(Long.MAX_VALUE, reusables.trimWhenIdle(10_000, true, engine));
        assertEquals(10_000 + ConnectionReusables.TRIM_AFTER_IDLE_MILLIS,
                reusables.trimWhenIdle(10_500, false, engine), "the idle time counts from the last busy pass");
        assertEquals(1, reusables.kept());
        reusables.trimWhenIdle(10_000 + ConnectionReusables.TRIM_AFTER_IDLE_MILLIS, false, engine);
        assertEquals(0, reusables.kept());
    }
}
