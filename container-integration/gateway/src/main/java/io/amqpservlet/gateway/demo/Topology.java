package io.amqpservlet.gateway.demo;

import io.amqpservlet.jetty.internal.exchange.Exchange;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The in-memory queues, exchanges and bindings of {@link ManagementServlet}: names and declared properties only
 * (no messages are ever stored, so every message count is 0). Every operation holds the topology's lock, because
 * deleting a queue or an exchange also removes the bindings that name it. Bounded: at most {@link #MAX_QUEUES}
 * queues, {@link #MAX_EXCHANGES} exchanges and {@link #MAX_BINDINGS} bindings.
 */
final class Topology {
    /** Queues kept; a declaration beyond it is refused. */
    static final int MAX_QUEUES = 1_000;
    /** Exchanges kept; a declaration beyond it is refused. */
    static final int MAX_EXCHANGES = 1_000;
    /** Bindings kept; a binding beyond it is refused. */
    static final int MAX_BINDINGS = 10_000;

    /** A queue as declared; {@code type} is its {@code x-queue-type} argument, {@code classic} without one. */
    record Queue(String name, boolean durable, boolean autoDelete, boolean exclusive, String type,
            Map<Object, Object> arguments) {
        boolean equivalent(Queue other) {
            return durable == other.durable && autoDelete == other.autoDelete && exclusive == other.exclusive
                    && arguments.equals(other.arguments);
        }
    }

    /** An exchange as declared. */
    record Exchange(String name, String type, boolean durable, boolean autoDelete, boolean internal,
            Map<Object, Object> arguments) {
    }

    /**
     * A binding from exchange {@code source} to a queue ({@code toQueue}) or an exchange named {@code destination}.
     */
    record Binding(String source, boolean toQueue, String destination, String key, Map<Object, Object> arguments) {
    }

    /** What a declaration did. */
    enum Declared {
        /** It did not exist: made. */
        CREATED,
        /** It existed with the same properties: nothing changed. */
        EXISTS,
        /** It existed with other properties: nothing changed (RabbitMQ's precondition-failed). */
        CONFLICT,
        /** The topology is full. */
        FULL
    }

    /** What a binding did. */
    enum Bound {
        /** Bound (or already bound: binding is idempotent). */
        BOUND,
        /** The source exchange or the destination does not exist. */
        NOT_FOUND,
        /** The topology is full. */
        FULL
    }

    private final Map<String, Queue> queues = new HashMap<>();
    private final Map<String, Exchange> exchanges = new HashMap<>();
    private final Set<Binding> bindings = new LinkedHashSet<>();

    synchronized Declared declare(Queue queue) {
        Queue existing = queues.get(queue.name());
        if (existing != null) {
            return existing.equivalent(queue) ? Declared.EXISTS : Declared.CONFLICT;
        }
        if (queues.size() >= MAX_QUEUES) {
            return Declared.FULL;
        }
        queues.put(queue.name(), queue);
        return Declared.CREATED;
    }

    synchronized Queue queue(String name) {
        return queues.get(name);
    }

    /** {@return whether the queue existed}; its bindings go with it. */
    synchronized boolean deleteQueue(String name) {
        bindings.removeIf(b -> b.toQueue() && b.destination().equals(name));
        return queues.remove(name) != null;
    }

    synchronized Declared declare(Exchange exchange) {
        Exchange existing = exchanges.get(exchange.name());
        if (existing != null) {
            return existing.equals(exchange) ? Declared.EXISTS : Declared.CONFLICT;
        }
        if (exchanges.size() >= MAX_EXCHANGES) {
            return Declared.FULL;
        }
        exchanges.put(exchange.name(), exchange);
        return Declared.CREATED;
    }

    /** Deletes the exchange and every binding from or to it; deleting an unknown exchange is not an error. */
    synchronized void deleteExchange(String name) {
        bindings.removeIf(b -> b.source().equals(name) || !b.toQueue() && b.destination().equals(name));
        exchanges.remove(name);
    }

    synchronized Bound bind(Binding binding) {
        boolean destinationExists = binding.toQueue() ? queues.containsKey(binding.destination())
                : exchanges.containsKey(binding.destination());
        if (!exchanges.containsKey(binding.source()) || !destinationExists) {
            return Bound.NOT_FOUND;
        }
        if (!bindings.contains(binding) && bindings.size() >= MAX_BINDINGS) {
            return Bound.FULL;
        }
        bindings.add(binding);
        return Bound.BOUND;
    }

    /** Removes the binding; removing one that does not exist is not an error (RabbitMQ answers 204 too). */
    synchronized void unbind(Binding binding) {
        bindings.remove(binding);
    }

    /** {@return the bindings from {@code source} to {@code destination} with {@code key}, any arguments} */
    synchronized List<Binding> bindings(String source, boolean toQueue, String destination, String key) {
        List<Binding> out = new ArrayList<>();
        for (Binding b : bindings) {
            if (b.source().equals(source) && b.toQueue() == toQueue && b.destination().equals(destination)
                    && b.key().equals(key)) {
                out.add(b);
            }
        }
        return out;
    }
}
