package io.amqpservlet.connector.sasl;

/**
 * Checks SASL PLAIN credentials (RFC 4616). The container integration implements it over a Jetty
 * {@code LoginService}; tests implement it over a fixed table. Called once per connection, on the thread that
 * parses the connection's input, so it must not block for long.
 */
@FunctionalInterface
public interface PlainAuthenticator {
    /**
     * Checks one client's credentials.
     *
     * @param authorizationId the identity to act as, or empty when the client asked for none
     * @param username the authentication identity
     * @param password the password
     * @return the authenticated identity to use as the request principal, or {@code null} to refuse
     */
    String authenticate(String authorizationId, String username, String password);
}
