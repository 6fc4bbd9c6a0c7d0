package io.amqpservlet.jetty.internal.connection;

import org.eclipse.jetty.io.EndPoint;

import java.security.cert.X509Certificate;

/**
 * The SASL EXTERNAL identity (RFC 4422 appendix A; AMQP 1.0 §5.3.3) of a TLS client: the subject distinguished
 * name of the certificate it presented, in RFC 2253 form ({@code CN=alice,OU=dev,O=Example}), or none when it
 * presented no certificate or the connection is not TLS.
 *
 * <p>Why the whole subject rather than its CN: the DN is what the trusted CA vouched for as a whole; two CAs, or two
 * organizational units under one, may issue the same CN to different holders. Applications that want the CN take it
 * from the principal's name ({@code javax.naming.ldap.LdapName} parses it).
 */
final class ClientCertificateIdentity {
    private ClientCertificateIdentity() {
    }

    /** The identity of the client of {@code endPoint} once its TLS handshake is done, or null. */
    static String of(EndPoint endPoint) {
        EndPoint.SslSessionData tls = endPoint.getSslSessionData();
        if (tls == null) {
            return null;
        }
        X509Certificate[] chain = tls.peerCertificates();
        // The first certificate is the client's own (RFC 8446 §4.4.2: the sender's certificate comes first).
        return chain == null || chain.length == 0 ? null : chain[0].getSubjectX500Principal().getName();
    }
}
