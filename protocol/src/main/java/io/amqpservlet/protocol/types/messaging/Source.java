package io.amqpservlet.protocol.types.messaging;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.types.Descriptors;
import io.amqpservlet.protocol.types.EncodedValue;
import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.SymbolArray;

/**
 * The {@code source} terminus (AMQP 1.0 §3.5.3): where a link's messages come from. Adds distribution-mode,
 * filter, default-outcome and outcomes to the fields of {@link Terminus}.
 */
public final class Source extends Terminus {
    private final MutableBytes distributionMode = new MutableBytes();
    private final EncodedValue filter = new EncodedValue();
    /** Made when first set or decoded: rarely sent, and a link keeps its source for its whole life. */
    private DeliveryState defaultOutcome;
    private final SymbolArray outcomes = new SymbolArray();

    /** An absent source with every field at its default. */
    public Source() {
        clear();
    }

    @Override
    public long descriptor() {
        return Descriptors.SOURCE;
    }

    @Override
    public String typeName() {
        return "source";
    }

    /** Resets every field to its default and makes the source absent. */
    @Override
    public Source clear() {
        clearTerminus();
        distributionMode.clear();
        filter.clear();
        if (defaultOutcome != null) {
            defaultOutcome.clear();
        }
        outcomes.clear();
        return this;
    }

    /** {@return the distribution-mode symbol ({@code move}, {@code copy}), or a null holder} */
    public MutableBytes distributionMode() {
        return distributionMode;
    }

    /** {@return the filter-set map, kept encoded} */
    public EncodedValue filter() {
        return filter;
    }

    /** {@return the default outcome for unsettled transfers, absent when not given} */
    public DeliveryState defaultOutcome() {
        DeliveryState d = defaultOutcome;
        if (d == null) {
            d = new DeliveryState();
            defaultOutcome = d;
        }
        return d;
    }

    /** {@return the outcomes the source supports (symbols, descriptor names such as {@code amqp:accepted:list})} */
    public SymbolArray outcomes() {
        return outcomes;
    }

    @Override
    public void decode(AmqpReader reader) {
        enterFields(reader);
        clear();
        decodeLeadingFields(reader);
        reader.nextField();
        distributionMode.read(reader);
        reader.nextField();
        filter.read(reader);
        if (reader.nextField() != FormatCode.NULL) {
            defaultOutcome().decode(reader);
        }
        reader.nextField();
        outcomes.read(reader);
        reader.nextField();
        capabilities().read(reader);
        exitFields(reader);
    }

    @Override
    public void encode(AmqpWriter writer) {
        startFields(writer);
        encodeLeadingFields(writer);
        symbolField(writer, distributionMode);
        encodedField(writer, filter);
        if (defaultOutcome != null) {
            compositeField(writer, defaultOutcome);
        } else {
            writer.writeNull();
        }
        symbolsField(writer, outcomes);
        symbolsField(writer, capabilities());
        endFields(writer);
    }

    @Override
    public String toString() {
        if (isNull()) {
            return "null";
        }
        StringBuilder sb = traceStart();
        traceLeadingFields(sb);
        traceSymbol(sb, "distribution-mode", distributionMode);
        traceEncoded(sb, "filter", filter);
        if (defaultOutcome != null) {
            traceComposite(sb, "default-outcome", defaultOutcome);
        }
        traceSymbols(sb, "outcomes", outcomes);
        traceSymbols(sb, "capabilities", capabilities());
        return traceEnd(sb);
    }
}
