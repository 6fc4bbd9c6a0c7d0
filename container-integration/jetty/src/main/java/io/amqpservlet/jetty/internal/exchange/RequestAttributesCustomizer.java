package io.amqpservlet.jetty.internal.exchange;

import io.amqpservlet.jetty.AmqpBody;
import io.amqpservlet.jetty.internal.mapping.MappedRequest;
import org.eclipse.jetty.http.HttpFields;
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

import static io.amqpservlet.jetty.AmqpRequestAttributes.CORRELATION_ID;
import static io.amqpservlet.jetty.AmqpRequestAttributes.DELIVERY_COUNT;
import static io.amqpservlet.jetty.AmqpRequestAttributes.LINK_ADDRESS;
import static io.amqpservlet.jetty.AmqpRequestAttributes.MESSAGE_ID;

/**
 * The first customizer of every AMQP request: wraps the request so that it answers the fixed attributes of
 * {@code AmqpRequestAttributes} (and a typed body's {@link AmqpBody#REQUEST_VALUE}) from the values the mapper read,
 * which are copied into the wrapper. Setting them one by one into Jetty's request made it create its attribute map per
 * request (a {@code ConcurrentHashMap}, its table and a node per attribute, about 200 bytes); a request whose servlet
 * sets no attribute of its own has no map at all. It acts only on the thread running an AMQP request's handler
 * ({@link HttpStreamOverAmqp#run()}, which makes that request known to the thread, Jetty's customizers running first
 * in that task); any other request passes through unchanged.
 */
public final class RequestAttributesCustomizer implements HttpConfiguration.Customizer {
    private static final RequestAttributesCustomizer INSTANCE = new RequestAttributesCustomizer();

    private RequestAttributesCustomizer() {
    }

    /**
     * The configuration AMQP requests see: a copy of {@code configured} with this customizer first. Made once per
     * factory settings, so a connection costs no copy; changes made to {@code configured} after that are not seen,
     * as a configuration is not changed once a server has started.
     */
    public static HttpConfiguration configurationFor(HttpConfiguration configured) {
        HttpConfiguration c = new HttpConfiguration(configured);
        List<HttpConfiguration.Customizer> customizers = new ArrayList<>(c.getCustomizers());
        customizers.add(0, INSTANCE);
        c.setCustomizers(customizers);
        return c;
    }

    @Override
    public Request customize(Request request, HttpFields.Mutable responseHeaders) {
        MappedRequest served = HttpStreamOverAmqp.servedRequest();
        return served == null ? request : new AttributesRequest(request, served);
    }

    /**
     * A request that answers the fixed attributes itself. Each one, once the application sets or removes it, is the
     * wrapped request's from then on (its value or its absence), as any other attribute always is.
     */
    private static final class AttributesRequest extends Request.Wrapper {
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

        AttributesRequest(Request wrapped, MappedRequest request) {
            super(wrapped);
            messageId = request.messageIdAttribute();
            correlationId = request.correlationIdAttribute();
            linkAddress = request.linkAddress();
            deliveryCount = request.deliveryCount();
            typedValue = request.typedValue();
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
