package io.amqpservlet.spring;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

import java.util.Map;

/**
 * Matches when {@code amqp.servlet.attachments} has an entry: a map of attachments by name, which
 * {@code @ConditionalOnProperty} cannot test, as no property is named {@code amqp.servlet.attachments} itself.
 */
public final class NamedAttachmentsCondition extends SpringBootCondition {
    /** The prefix of the named attachments' properties. */
    static final String PREFIX = "amqp.servlet.attachments";

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        // Bound as text by full remaining name (orders.uri, orders.credit, ...): any property under the prefix counts,
        // and nothing is converted yet, so a wrong value fails where the properties are bound, with Boot's message.
        Map<String, String> entries = Binder.get(context.getEnvironment())
                .bind(PREFIX, Bindable.mapOf(String.class, String.class)).orElse(Map.of());
        return entries.isEmpty()
                ? ConditionOutcome.noMatch("no " + PREFIX + ".* property")
                : ConditionOutcome.match(PREFIX + ".* properties set");
    }
}
