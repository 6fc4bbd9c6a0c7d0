package io.amqpservlet.micrometer;

import io.amqpservlet.jetty.AmqpBrokerAttachment;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The meters of a broker attachment, each tagged {@code connector.name} with the attachment's name (it is a Jetty
 * connector of its own):
 * <ul>
 *   <li>what became of its requests, the same meters a listener has ({@code amqp.servlet.requests} by
 *       {@code outcome}, {@code amqp.servlet.requests.timed.out}, {@code amqp.servlet.responses.late},
 *       {@code amqp.servlet.requests.active}; see {@link AmqpConnectionFactoryMetrics}), read from its connection
 *       factory, which its connections count their requests into;</li>
 *   <li>{@code amqp.servlet.attach.state} (gauge; {@code state} {@code STOPPED}, {@code CONNECTING},
 *       {@code ATTACHED}, {@code BACKING_OFF}): 1 for the state it is in, 0 for the others;</li>
 *   <li>{@code amqp.servlet.attach.connects} (function counter): connections made to a broker, reconnections
 *       included;</li>
 *   <li>{@code amqp.servlet.attach.consecutive.failures} (gauge): failed or lost connections since it was last
 *       attached;</li>
 *   <li>{@code amqp.servlet.attach.reconnect.delay} (time gauge): the wait before it connects again;</li>
 *   <li>{@code amqp.servlet.attach.outstanding.peak} (gauge): the most requests the broker had out to it at once;</li>
 *   <li>{@code amqp.servlet.attach.buffered} (gauge, bytes): request bodies unread and responses unwritten on its
 *       connections;</li>
 *   <li>{@code amqp.servlet.attach.beyond.credit} (function counter): requests the broker sent beyond the credit;</li>
 *   <li>{@code amqp.servlet.attach.errors.sent} (function counter; {@code scope} {@code connection}, {@code session},
 *       {@code link}, and {@code condition}): the AMQP errors it sent its brokers, each meter made as the first error
 *       of its scope and condition is sent. Not {@code amqp.servlet.errors.sent}, a listener's errors sent to its
 *       clients: a sum over connectors of that meter stays the errors clients met.</li>
 * </ul>
 * A listener's connection and byte-budget meters are not here: an attachment's connection counts into a budget of
 * its own, not into its factory's, so they would read 0. The name is read when the meters are bound.
 *
 * <pre>{@code
 * new AmqpBrokerAttachmentMetrics(attachment).bindTo(registry);
 * }</pre>
 */
public final class AmqpBrokerAttachmentMetrics implements MeterBinder {
    /**
     * The states {@link AmqpBrokerAttachment#getState()} names, each a value of the {@code state} tag: the library's
     * words, as its JMX attribute and the starter's health details show them.
     */
    private static final List<String> STATES = List.of("STOPPED", "CONNECTING", "ATTACHED", "BACKING_OFF");

    private final AmqpBrokerAttachment attachment;
    private final Iterable<Tag> tags;

    /**
     * The meters of {@code attachment}.
     *
     * @param attachment the broker attachment
     */
    public AmqpBrokerAttachmentMetrics(AmqpBrokerAttachment attachment) {
        this(attachment, Tags.empty());
    }

    /**
     * The meters of {@code attachment}, with tags of the application's besides.
     *
     * @param attachment the broker attachment
     * @param tags       tags every meter carries besides {@code connector.name}
     */
    public AmqpBrokerAttachmentMetrics(AmqpBrokerAttachment attachment, Iterable<Tag> tags) {
        this.attachment = Objects.requireNonNull(attachment, "attachment");
        this.tags = Objects.requireNonNull(tags, "tags");
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        RequestMeters requests = new RequestMeters(attachment.getConnectionFactory(), attachment.getName(), tags);
        requests.bindTo(registry);
        Tags connector = requests.tags();
        // One gauge per state rather than the state as a value: a state set, so an alert reads
        // amqp_servlet_attach_state{state="ATTACHED"} == 0 and a graph stacks the states.
        for (String state : STATES) {
            Gauge.builder("amqp.servlet.attach.state", attachment, a -> state.equals(a.getState()) ? 1 : 0)
                    .tags(connector).tag("state", state)
                    .description("1 for the state the attachment is in, 0 for the others").register(registry);
        }
        FunctionCounter.builder("amqp.servlet.attach.connects", attachment, AmqpBrokerAttachment::getConnectCount)
                .tags(connector).description("Connections made to a broker, reconnections included")
                .register(registry);
        // A gauge: the count starts again at 0 once attached, which a counter must never do.
        Gauge.builder("amqp.servlet.attach.consecutive.failures", attachment, AmqpBrokerAttachment::getFailures)
                .tags(connector).description("Failed or lost connections since the attachment was last attached")
                .register(registry);
        TimeGauge.builder("amqp.servlet.attach.reconnect.delay", attachment, TimeUnit.MILLISECONDS,
                        AmqpBrokerAttachment::getReconnectDelay)
                .tags(connector).description("The wait before connecting again (0 once attached)")
                .register(registry);
        Gauge.builder("amqp.servlet.attach.outstanding.peak", attachment, AmqpBrokerAttachment::getMostOutstanding)
                .tags(connector).description("The most requests out to the attachment at once: credit plus unsettled")
                .register(registry);
        Gauge.builder("amqp.servlet.attach.buffered", attachment, AmqpBrokerAttachment::getBufferedBytes)
                .tags(connector).baseUnit(BaseUnits.BYTES)
                .description("Bytes the attachment's connections buffer now: request bodies unread, responses unwritten")
                .register(registry);
        FunctionCounter.builder("amqp.servlet.attach.beyond.credit", attachment,
                        AmqpBrokerAttachment::getRequestsBeyondCredit)
                .tags(connector).description("Requests the broker sent beyond the credit").register(registry);
        // Made as each scope and condition is first sent, as a listener's errors sent to clients are.
        attachment.watchErrorsSent((scope, condition) -> FunctionCounter.builder("amqp.servlet.attach.errors.sent",
                        attachment, a -> a.getErrorsSent(scope, condition))
                .tags(connector).tag("scope", scope).tag("condition", condition)
                .description("AMQP errors sent to the broker, by where (a connection's close, a session's end, a "
                        + "link's detach or refusal) and condition")
                .register(registry));
    }
}
