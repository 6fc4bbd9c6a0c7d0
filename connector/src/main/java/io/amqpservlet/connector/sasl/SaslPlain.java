package io.amqpservlet.connector.sasl;

import java.nio.charset.StandardCharsets;

/** The client side of SASL PLAIN (RFC 4616): the initial response a client sends in sasl-init. */
public final class SaslPlain {
    private SaslPlain() {
    }

    /**
     * The initial response of SASL PLAIN.
     *
     * @param authorizationId the identity to act as, or null or empty for none
     * @param username the authentication identity
     * @param password its password
     * @return {@code authzid NUL username NUL password} in UTF-8; an empty or null authzid is left out
     */
    public static byte[] initialResponse(String authorizationId, String username, String password) {
        byte[] z = authorizationId == null ? new byte[0] : authorizationId.getBytes(StandardCharsets.UTF_8);
        byte[] u = username.getBytes(StandardCharsets.UTF_8);
        byte[] p = password.getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[z.length + u.length + p.length + 2];
        System.arraycopy(z, 0, out, 0, z.length);
        System.arraycopy(u, 0, out, z.length + 1, u.length);
        System.arraycopy(p, 0, out, z.length + u.length + 2, p.length);
        return out;
    }
}
