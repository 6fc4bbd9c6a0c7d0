package io.amqpservlet.jetty;

import io.amqpservlet.jetty.internal.exchange.Exchange;
import io.amqpservlet.jetty.internal.exchange.HttpStreamOverAmqp;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Request;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * The request attributes the AMQP connector sets on every request it dispatches: a fixed, documented list, so a
 * servlet can see the AMQP side of its request (for example to detect a redelivery by its message-id).
 *
 * <p>Nothing a peer chooses ever names an attribute: application-properties become headers or nothing, never
 * attributes (docs/design.md §3; a peer-chosen attribute name is how AJP's Ghostcat let clients set
 * {@code javax.servlet.include.*}). An attribute is absent when the message has no such field. A typed body adds
 * one more, {@link AmqpBody#REQUEST_VALUE}.
 */
public final class AmqpRequestAttributes {
    /**
     * The request's {@code properties.message-id} (AMQP 1.0 §3.2.4), as its AMQP type maps to Java:
     * {@code String}, {@code java.util.UUID}, {@code byte[]} (binary) or {@code Long} (ulong, the 64 bits read as
     * unsigned: use {@link Long#toUnsignedString(long)}).
     */
    public static final String MESSAGE_ID = "io.amqpservlet.message-id";
    /** The request's {@code properties.correlation-id}, typed as {@link #MESSAGE_ID}. */
    public static final String CORRELATION_ID = "io.amqpservlet.correlation-id";
    /**
     * The target address of the link the request arrived on ({@code String}); absent for a link without a target
     * address (the anonymous relay, where {@code properties.to} alone names the resource).
     */
    public static final String LINK_ADDRESS = "io.amqpservlet.link-address";
    /**
     * The request's {@code header.delivery-count} (AMQP 1.0 §3.2.1) as a {@code Long}: how many earlier attempts
     * to deliver this message failed; 0 when the message has no header. A count above 0 marks a possible
     * redelivery of a request the servlet may already have served.
     */
    public static final String DELIVERY_COUNT = "io.amqpservlet.delivery-count";

    private AmqpRequestAttributes() {
    }

    /**
     * The first customizer of every AMQP request (the connection's {@link HttpConfiguration} is the factory's with this
     * one in front, see {@link #configurationFor}): wraps the request so that it answers the fixed attributes from
     * the values the mapper read, which are copied into the wrapper. Setting them one by one into Jetty's request
     * made it create its attribute map per request (a {@code ConcurrentHashMap}, its table and a node per attribute,
     * about 200 bytes); a request whose servlet sets no attribute of its own now has no map at all. It acts only
     * on the thread running an AMQP request's handler ({@link HttpStreamOverAmqp#run()}); any other request passes
     * through unchanged.
     */
    static final HttpConfiguration.Customizer CUSTOMIZER = (request, responseHeaders) -> {
        Exchange exchange = HttpStreamOverAmqp.servedExchange();
        return exchange == null ? request : new AttributesRequest(request, exchange);
    };

    /** Each configuration connections were made with, and the copy of it they use (weak keys, by identity). */
    private static final Map<HttpConfiguration, HttpConfiguration> DERIVED = new WeakHashMap<>();

    /**
     * The configuration AMQP requests see: a copy of {@code configured} with {@link #CUSTOMIZER} as its first
     * customizer, made once per configuration (the first connection made with it), so a connection costs no copy.
     * Changes made to {@code configured} after that are not seen, as a configuration is not changed once a server
     * has started.
     */
    public static HttpConfiguration configurationFor(HttpConfiguration configured) {
        synchronized (DERIVED) {
            HttpConfiguration c = DERIVED.get(configured);
            if (c == null) {
                c = new HttpConfiguration(configured);
                List<HttpConfiguration.Customizer> customizers = new ArrayList<>(c.getCustomizers());
                customizers.add(0, CUSTOMIZER);
                c.setCustomizers(customizers);
                DERIVED.put(configured, c);
            }
            return c;
        }
    }

    /** Sets the connection's user on a request about to be handled (before customizers and handlers see it). */
    public static void setUser(Request request, Request.AuthenticationState user) {
        if (user != null) {
            // Without a SecurityHandler this is what getUserPrincipal() reads; with one, AmqpAuthenticator answers.
            Request.setAuthenticationState(request, user);
        }
    }

    /**
     * A request that answers the fixed attributes itself. Each one, once the application sets or removes it, is the
     * wrapped request's from then on (its value or its absence), as any other attribute always is.
     */
    static final class AttributesRequest extends Request.Wrapper {
        private static final int MESSAGE_ID_BIT = 1;
        private static final int CORRELATION_ID_BIT = 2;
        private static final int LINK_ADDRESS_BIT = 4;
        private static final int DELIVERY_COUNT_BIT = 8;
        private static final int REQUEST_VALUE_BIT = 16;
        private static final int ALL = 31;

        private final Object messageId;
        private final Object correlationId;
        private final String linkAddress;
        private final long deliveryCount;
        private final Object typedValue;
        /** The attributes set or removed by the application since: the wrapped request's now. */
        private int overridden;

        AttributesRequest(Request wrapped, Exchange exchange) {
            super(wrapped);
            messageId = exchange.messageIdAttribute;
            correlationId = exchange.correlationIdAttribute;
            linkAddress = exchange.linkAddress;
            deliveryCount = exchange.deliveryCount;
            typedValue = exchange.typedValue;
        }

        private static int bit(String name) {
            if (name == null || !name.startsWith("io.amqpservlet.")) {
                return 0; // the usual case: one comparison of a prefix
            }
            switch (name) {
                case MESSAGE_ID:
                    return MESSAGE_ID_BIT;
                case CORRELATION_ID:
                    return CORRELATION_ID_BIT;
                case LINK_ADDRESS:
                    return LINK_ADDRESS_BIT;
                case DELIVERY_COUNT:
                    return DELIVERY_COUNT_BIT;
                case AmqpBody.REQUEST_VALUE:
                    return REQUEST_VALUE_BIT;
                default:
                    return 0;
            }
        }

        /** The value of a fixed attribute, null when the message had no such field. */
        private Object own(int bit) {
            switch (bit) {
                case MESSAGE_ID_BIT:
                    return messageId;
                case CORRELATION_ID_BIT:
                    return correlationId;
                case LINK_ADDRESS_BIT:
                    return linkAddress;
                case DELIVERY_COUNT_BIT:
                    return deliveryCount;
                default:
                    return typedValue;
            }
        }

        @Override
        public Object getAttribute(String name) {
            int bit = bit(name);
            return bit != 0 && (overridden & bit) == 0 ? own(bit) : super.getAttribute(name);
        }

        @Override
        public Object setAttribute(String name, Object value) {
            int bit = bit(name);
            if (bit == 0) {
                return super.setAttribute(name, value);
            }
            Object old = getAttribute(name);
            overridden |= bit;
            super.setAttribute(name, value);
            return old;
        }

        @Override
        public Object removeAttribute(String name) {
            int bit = bit(name);
            if (bit == 0) {
                return super.removeAttribute(name);
            }
            Object old = getAttribute(name);
            overridden |= bit;
            super.removeAttribute(name);
            return old;
        }

        @Override
        public Set<String> getAttributeNameSet() {
            Set<String> wrapped = super.getAttributeNameSet();
            Set<String> names = null;
            for (int bit = 1; bit <= REQUEST_VALUE_BIT; bit <<= 1) {
                if ((overridden & bit) == 0 && own(bit) != null) {
                    if (names == null) {
                        names = new HashSet<>(wrapped);
                    }
                    names.add(name(bit));
                }
            }
            return names == null ? wrapped : Collections.unmodifiableSet(names);
        }

        private static String name(int bit) {
            switch (bit) {
                case MESSAGE_ID_BIT:
                    return MESSAGE_ID;
                case CORRELATION_ID_BIT:
                    return CORRELATION_ID;
                case LINK_ADDRESS_BIT:
                    return LINK_ADDRESS;
                case DELIVERY_COUNT_BIT:
                    return DELIVERY_COUNT;
                default:
                    return AmqpBody.REQUEST_VALUE;
            }
        }

        /** A view of this request's attributes, the fixed ones included (the wrapped request's map lacks them). */
        @Override
        public Map<String, Object> asAttributeMap() {
            return new AbstractMap<>() {
                @Override
                public Object get(Object key) {
                    return key instanceof String name ? getAttribute(name) : null;
                }

                @Override
                public Object put(String key, Object value) {
                    return setAttribute(key, value);
                }

                @Override
                public Object remove(Object key) {
                    return key instanceof String name ? removeAttribute(name) : null;
                }

                @Override
                public Set<Entry<String, Object>> entrySet() {
                    Map<String, Object> now = new LinkedHashMap<>();
                    for (String name : getAttributeNameSet()) {
                        now.put(name, getAttribute(name));
                    }
                    return Collections.unmodifiableMap(now).entrySet();
                }
            };
        }

        @Override
        public void clearAttributes() {
            overridden = ALL;
            super.clearAttributes();
        }
    }
}
