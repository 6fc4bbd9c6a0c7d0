package io.amqpservlet.bench.broker;

import io.amqpservlet.bench.load.LoadOptions;
import io.amqpservlet.bench.load.LoadResult;
import io.amqpservlet.bench.load.LoadRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The brokered baseline works end to end: the generator's requests go through a real Artemis broker to the
 * responder, whose answers come back to the generator's temporary queue, matched by correlation-id.
 */
@Timeout(120)
class BrokeredLoadTest {
    @Test
    void generatorGetsEveryAnswerThroughTheBroker() throws Exception {
        try (ArtemisBroker.Running broker = ArtemisBroker.start(0)) {
            LoadOptions o = new LoadOptions().endpoint("amqp://127.0.0.1:" + broker.port() + "/" + ArtemisBroker.QUEUE)
                    .connections(2).window(4).warmupMillis(300).durationMillis(1_500).progress(false);
            LoadResult r = new LoadRun(o, null).run();
            assertTrue(r.responses() > 0, r.describe());
            assertEquals(0, r.errorCount(), () -> "errors: " + r.errors());
        }
    }
}
