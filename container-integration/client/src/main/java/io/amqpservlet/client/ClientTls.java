package io.amqpservlet.client;

import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertPathValidatorException;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Collection;

/**
 * The client side of AMQPS for the {@code request} CLI: whom to trust and which certificate to present, as curl's
 * {@code --cacert}, {@code -k} and {@code --cert} (PKCS12) say. {@link #wrap} turns a connected socket into a TLS
 * socket whose handshake is done, with the server's certificate checked against the host name (RFC 6125, the
 * JDK's {@code HTTPS} rules) unless insecure.
 */
public final class ClientTls {
    private final SSLContext context;
    private final boolean insecure;
    private final boolean clientCertificate;

    private ClientTls(SSLContext context, boolean insecure, boolean clientCertificate) {
        this.context = context;
        this.insecure = insecure;
        this.clientCertificate = clientCertificate;
    }

    /**
     * The TLS settings of a client: whom it trusts, and the certificate it presents if any.
     *
     * @param caCertificates a file of trusted certificates, PEM (one or more) or DER; null for the JDK's trust store
     * @param insecure trust any server certificate and skip the host name check ({@code -k})
     * @param keyStore a PKCS12 file with the client's key and certificate, or null for none
     * @param keyStorePassword its password (also the key's), or null for an empty one
     * @throws AmqpClientException {@link AmqpClientException#CA_CERTIFICATES} when {@code caCertificates} is unusable,
     *                             {@link AmqpClientException#LOCAL_CERTIFICATE} when {@code keyStore} is
     * @return the settings, ready to wrap sockets
     */
    public static ClientTls create(Path caCertificates, boolean insecure, Path keyStore, String keyStorePassword)
            throws AmqpClientException {
        TrustManager[] trust = null; // null: the JDK's default trust store
        if (insecure) {
            trust = new TrustManager[] {new TrustAnything()};
        } else if (caCertificates != null) {
            try {
                trust = trustOnly(caCertificates);
            } catch (IOException | GeneralSecurityException e) {
                throw new AmqpClientException(AmqpClientException.CA_CERTIFICATES, "cannot use --cacert "
                        + caCertificates + ": " + e.getMessage(), e);
            }
        }
        KeyManager[] keys = null;
        if (keyStore != null) {
            char[] password = keyStorePassword == null ? new char[0] : keyStorePassword.toCharArray();
            try (InputStream in = Files.newInputStream(keyStore)) {
                KeyStore ks = KeyStore.getInstance("PKCS12");
                ks.load(in, password);
                KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(ks, password);
                keys = kmf.getKeyManagers();
            } catch (IOException | GeneralSecurityException e) {
                throw new AmqpClientException(AmqpClientException.LOCAL_CERTIFICATE, "cannot use --cert " + keyStore
                        + " (a PKCS12 file and its password): " + e.getMessage(), e);
            }
        }
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys, trust, null);
            return new ClientTls(context, insecure, keyStore != null);
        } catch (GeneralSecurityException e) {
            throw new AmqpClientException(AmqpClientException.TLS_FAILED, "no TLS: " + e.getMessage(), e);
        }
    }

    private static TrustManager[] trustOnly(Path file) throws IOException, GeneralSecurityException {
        Collection<? extends Certificate> certificates;
        try (InputStream in = Files.newInputStream(file)) {
            certificates = CertificateFactory.getInstance("X.509").generateCertificates(in);
        }
        if (certificates.isEmpty()) {
            throw new CertificateException("no certificate in " + file);
        }
        KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
        ks.load(null, null);
        int i = 0;
        for (Certificate c : certificates) {
            ks.setCertificateEntry("ca-" + i++, c);
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ks);
        return tmf.getTrustManagers();
    }

    /** {@return whether a client certificate is configured (the CLI then logs in with SASL EXTERNAL)} */
    public boolean hasClientCertificate() {
        return clientCertificate;
    }

    /**
     * Runs the TLS handshake over {@code socket}, within {@code timeoutMillis}.
     *
     * @throws AmqpClientException {@link AmqpClientException#PEER_CERTIFICATE} when the server's certificate is not
     *                             trusted or not for {@code host}, {@link AmqpClientException#TLS_FAILED} for other
     *                             handshake failures, {@link AmqpClientException#TIMEOUT} when time runs out
     */
    SSLSocket wrap(Socket socket, String host, int port, long timeoutMillis) throws IOException {
        SSLSocket tls = (SSLSocket) context.getSocketFactory().createSocket(socket, host, port, true);
        if (!insecure) {
            SSLParameters p = tls.getSSLParameters();
            // The JDK checks the name only when asked to; "HTTPS" is RFC 2818/6125 matching, right for AMQPS too.
            p.setEndpointIdentificationAlgorithm("HTTPS");
            tls.setSSLParameters(p);
        }
        int before = tls.getSoTimeout();
        tls.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, timeoutMillis)));
        try {
            tls.startHandshake();
        } catch (java.net.SocketTimeoutException e) {
            tls.close();
            throw new AmqpClientException(AmqpClientException.TIMEOUT, "TLS handshake with " + host + ":" + port
                    + " timed out", e);
        } catch (SSLException e) {
            tls.close();
            boolean certificate = causedBy(e, CertificateException.class)
                    || causedBy(e, CertPathValidatorException.class);
            throw new AmqpClientException(certificate ? AmqpClientException.PEER_CERTIFICATE
                    : AmqpClientException.TLS_FAILED, "TLS handshake with " + host + ":" + port + " failed: "
                    + e.getMessage(), e);
        }
        tls.setSoTimeout(before);
        return tls;
    }

    private static boolean causedBy(Throwable t, Class<? extends Throwable> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return true;
            }
        }
        return false;
    }

    /** {@code -k}: any server certificate is accepted, as with curl's {@code --insecure}; for self-signed demos. */
    private static final class TrustAnything implements X509TrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
            // never used on the client side
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {
            // deliberately no check: the user asked for --insecure
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
