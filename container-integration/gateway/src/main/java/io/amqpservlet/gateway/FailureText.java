package io.amqpservlet.gateway;

import java.net.BindException;
import java.util.HashSet;
import java.util.Set;

/**
 * Why the gateway could not start (or stop), in one line for a person: the innermost message that says something,
 * without Java class names (a port in use, a servlet class or war missing, a war that failed to deploy).
 */
final class FailureText {
    private FailureText() {
    }

    /** The one-line reason for {@code failure}. */
    static String describe(Throwable failure) {
        Set<Throwable> seen = new HashSet<>();
        String outer = message(failure);
        String inner = null;
        for (Throwable t = failure.getCause(); t != null && seen.add(t); t = t.getCause()) {
            if (t instanceof BindException) {
                return outer + " (" + t.getMessage() + ")";
            }
            String m = message(t);
            if (m != null) {
                inner = m;
            }
        }
        if (outer == null) {
            return inner != null ? inner : "an unexplained " + failure.getClass().getSimpleName();
        }
        return inner == null || outer.contains(inner) ? outer : outer + ": " + inner;
    }

    /** The message of {@code t} without a leading class name, or null when it has none. */
    private static String message(Throwable t) {
        String m = t.getMessage();
        if (m == null || m.isBlank()) {
            return null;
        }
        // Some wrapped exceptions carry their cause's toString() ("java.io.FileNotFoundException: x") as message.
        int colon = m.indexOf(": ");
        if (colon > 0 && m.substring(0, colon).matches("([a-z_][a-z0-9_]*\\.)+[A-Z][A-Za-z0-9_$]*")) {
            m = m.substring(colon + 2);
        }
        // Jetty puts its components' state dumps in messages ("holder x==a.B@30809f{jsp=null,...}"): keep the name.
        int dump = m.indexOf('{');
        if (dump > 0) {
            m = m.substring(0, dump);
        }
        return m.replaceAll("@[0-9a-f]+\\b", "").replace('\n', ' ').trim();
    }
}
