package io.amqpservlet.jetty.internal.attach;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.connector.WrittenStreamCheck;
import io.amqpservlet.protocol.AllocationBudget;
import org.eclipse.jetty.logging.JettyLevel;
import org.eclipse.jetty.logging.JettyLogger;
import org.slf4j.LoggerFactory;

/**
 * Coverage-guided fuzzing of the initiator role as a broker attachment plays it (docs/fuzzing.md): any bytes as what a
 * broker sends, from the very first byte or after a valid handshake, go through the attachment's engine
 * ({@link AttachEngineConfig}) and its link rules ({@link AttachedLinks}, driven as {@code AttachedHandler} drives
 * them, see {@link FuzzedAttachment}) in slices, with time passing past the attach, reply-link and idle deadlines. The
 * contract is the acceptor's: {@code ingest} and the ticks never throw for a broker's bytes, whatever arrives earns at
 * most an {@code amqp:} error and the end of the connection, what the attachment writes is a well-formed stream
 * ({@link WrittenStreamCheck}), and memory follows the bytes that arrived ({@link AllocationBudget}).
 *
 * <p>{@code mvn verify} replays the committed inputs under {@code AttachedLinksFuzzTestInputs/}; {@code load-tests/bench
 * fuzz} runs the fuzzer.
 */
class AttachedLinksFuzzTest {
    private static final byte[] NOTHING = new byte[0];

    static {
        // A hostile broker earns a warning per connection from the attachment: millions of them would be the campaign.
        for (Class<?> quiet : new Class<?>[] {AttachedLinks.class, Reconnection.class}) {
            if (LoggerFactory.getLogger(quiet) instanceof JettyLogger logger) {
                logger.setLevel(JettyLevel.OFF);
            }
        }
    }

    /** The attachment logs in with SASL PLAIN, as one given a user and password does. */
    @FuzzTest(maxDuration = "5m")
    void attachmentTakesAnyBytesFromTheFirstByte(byte[] input) {
        ingestChecked(true, NOTHING, input, 0);
    }

    /** The first byte picks one of the {@link BrokerPrefixes}; the rest follows it. */
    @FuzzTest(maxDuration = "5m")
    void attachmentTakesAnyBytesAfterAValidHandshake(byte[] input) {
        if (input.length == 0) {
            return;
        }
        int which = (input[0] & 0xFF) % BrokerPrefixes.COUNT;
        ingestChecked(BrokerPrefixes.plain(which), BrokerPrefixes.get(which), input, 1);
    }

    private static void ingestChecked(boolean plain, byte[] prefix, byte[] input, int from) {
        WrittenStreamCheck[] written = new WrittenStreamCheck[1];
        AllocationBudget.check("attachment Engine.ingest", prefix.length + input.length - from, () -> {
            FuzzedAttachment attachment = new FuzzedAttachment(BrokerConversation.START_MILLIS);
            Engine engine = new Engine(FuzzedAttachment.config(plain), attachment);
            written[0] = new WrittenStreamCheck();
            engine.start(BrokerConversation.START_MILLIS);
            written[0].drain(engine);
            engine.ingest(prefix, 0, prefix.length, BrokerConversation.START_MILLIS);
            attachment.tick(engine, BrokerConversation.START_MILLIS);
            written[0].drain(engine);
            feed(engine, attachment, input, from, written[0]);
        });
        written[0].check();
    }

    /**
     * The bytes after {@code from}, in slices whose size the last byte picks (1 to 2,041 bytes), so frames split
     * across reads at every place; then time passes beyond the attach deadline, the reply links' idle time and the
     * idle timeout, which must end any connection.
     */
    private static void feed(Engine engine, FuzzedAttachment attachment, byte[] input, int from,
                             WrittenStreamCheck written) {
        int length = input.length - from;
        int sliceBytes = length <= 0 ? 1 : 1 + (input[input.length - 1] & 0xFF) * 8;
        long now = BrokerConversation.START_MILLIS;
        for (int at = from; at < input.length && !engine.isDone(); at += sliceBytes) {
            now++;
            attachment.nowMillis = now;
            engine.ingest(input, at, Math.min(sliceBytes, input.length - at), now);
            attachment.tick(engine, now);
            written.drain(engine);
        }
        long[] later = {1_000, FuzzedAttachment.SETTINGS.attachTimeoutMillis() + 1,
            FuzzedAttachment.SETTINGS.replyLinkIdleTimeoutMillis() + 2, 120_000};
        for (long step : later) {
            attachment.tick(engine, now + step);
            written.drain(engine);
        }
    }
}
