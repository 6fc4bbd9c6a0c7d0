package io.amqpservlet.client;

import org.eclipse.jetty.util.ssl.SslContextFactory;

import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.UnrecoverableKeyException;
import java.security.cert.CRL;
import java.security.cert.CertPathValidatorException;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.util.Collection;

/**
 * The client side of AMQPS: whom to trust and which certificate to present, as curl's {@code --cacert}, {@code -k},
 * {@code --cert} and {@code --key} say, on Jetty's {@link SslContextFactory.Client} (its protocol and cipher
 * defaults, and the server's certificate checked against the host name, RFC 6125 with the JDK's {@code HTTPS}
 * rules, unless insecure). {@link #wrap} turns a connected socket into a TLS socket whose handshake is done.
 */
public final class ClientTls {
    private final SslContextFactory.Client factory;
    private final boolean clientCertificate;

    private ClientTls(SslContextFactory.Client factory, boolean clientCertificate) {
        this.factory = factory;
        this.clientCertificate = clientCertificate;
    }

    /**
     * TLS with a client certificate from a PKCS12 file (curl's {@code --cert file.p12:password}).
     *
     * @param caCertificates a file of trusted certificates, PEM (one or more) or DER; null for the JDK's trust store
     * @param insecure trust any server certificate and skip the host name check ({@code -k})
     * @param keyStore a PKCS12 file with the client's key and certificate, or a PEM certificate that also holds
     *                 its key; null for none
     * @param keyStorePassword its password (also the key's), or null for an empty one
     * @throws AmqpClientException {@link AmqpClientException#CA_CERTIFICATES} when {@code caCertificates} is unusable,
     *                             {@link AmqpClientException#LOCAL_CERTIFICATE} when {@code keyStore} is
     * @return the settings, ready to wrap sockets
     */
    public static ClientTls create(Path caCertificates, boolean insecure, Path keyStore, String keyStorePassword)
            throws AmqpClientException {
        return create(caCertificates, insecure, keyStore, null, keyStorePassword);
    }

    /**
     * TLS with a client certificate from either a PKCS12 file or PEM files (curl's {@code --cert cert.pem
     * --key key.pem}); which one is told by the file's content.
     *
     * @param caCertificates a file of trusted certificates, PEM (one or more) or DER; null for the JDK's trust store
     * @param insecure trust any server certificate and skip the host name check ({@code -k})
     * @param certificate a PKCS12 file, or a PEM file with the client's certificate chain (its own first); null
     *                    for no client certificate
     * @param privateKey a PEM file with the certificate's unencrypted private key; null when {@code certificate}
     *                   holds it (PKCS12, or PEM with the key in the same file)
     * @param password the PKCS12 file's password, or null for an empty one; unused for PEM
     * @return the settings, to pass to {@link AmqpRequestClient#connect(String, int, String,
     *         io.amqpservlet.connector.engine.EngineConfig, long, ClientTls)}
     * @throws AmqpClientException {@link AmqpClientException#CA_CERTIFICATES} when {@code caCertificates} is unusable,
     *                             {@link AmqpClientException#LOCAL_CERTIFICATE} when the certificate or key is
     */
    public static ClientTls create(Path caCertificates, boolean insecure, Path certificate, Path privateKey,
                                   String password) throws AmqpClientException {
        KeyStore trusted = null;
        if (!insecure && caCertificates != null) {
            try {
                trusted = trustOnly(caCertificates);
            } catch (IOException | GeneralSecurityException e) {
                throw new AmqpClientException(AmqpClientException.CA_CERTIFICATES, "cannot use --cacert "
                        + caCertificates + ": " + problem(e, caCertificates), e);
            }
        }
        SslContextFactory.Client factory = new Trust(insecure, trusted);
        if (trusted != null) {
            factory.setTrustStore(trusted); // without a trust or key store Jetty skips getTrustManagers
        }
        if (insecure) {
            factory.setTrustAll(true);
            factory.setEndpointIdentificationAlgorithm(null);
        } else {
            // Jetty's client default already; stated because AMQPS relies on it (RFC 6125 host name check).
            factory.setEndpointIdentificationAlgorithm("HTTPS");
        }
        if (certificate != null) {
            try {
                KeyStore keys;
                String keysPassword;
                readable(certificate);
                if (privateKey != null) {
                    readable(privateKey);
                }
                if (privateKey != null || PemKeyMaterial.isPem(certificate)) {
                    keys = PemKeyMaterial.load(certificate, privateKey);
                    keysPassword = PemKeyMaterial.STORE_PASSWORD;
                } else {
                    keysPassword = password == null ? "" : password;
                    keys = KeyStore.getInstance("PKCS12");
                    try (InputStream in = Files.newInputStream(certificate)) {
                        keys.load(in, keysPassword.toCharArray());
                    } catch (IOException e) {
                        // The JDK says "keystore password was incorrect" (caused by an UnrecoverableKeyException),
                        // or nothing useful for a file that is no PKCS12 ("null", "DerInputStream.getLength()...").
                        throw new GeneralSecurityException(e.getCause() instanceof UnrecoverableKeyException
                                ? "wrong password" : "not a PKCS12 file or PEM certificate", e);
                    }
                }
                factory.setKeyStore(keys);
                factory.setKeyStorePassword(keysPassword);
                factory.setKeyManagerPassword(keysPassword);
            } catch (IOException | GeneralSecurityException e) {
                throw new AmqpClientException(AmqpClientException.LOCAL_CERTIFICATE, "cannot use --cert "
                        + certificate + (privateKey == null ? "" : " with --key " + privateKey)
                        + " (a PKCS12 file and its password, or PEM certificate and key): "
                        + problem(e, certificate), e);
            }
        }
        try {
            factory.start();
        } catch (Exception e) {
            throw new AmqpClientException(certificate != null ? AmqpClientException.LOCAL_CERTIFICATE
                    : AmqpClientException.TLS_FAILED, "cannot set up TLS: " + e.getMessage(), e);
        }
        return new ClientTls(factory, certificate != null);
    }

    private static KeyStore trustOnly(Path file) throws IOException, GeneralSecurityException {
        Collection<? extends Certificate> certificates;
        readable(file);
        try (InputStream in = Files.newInputStream(file)) {
            certificates = CertificateFactory.getInstance("X.509").generateCertificates(in);
        } catch (CertificateException e) {
            // The JDK's text is about its parser ("signed fields invalid", "No certificate data found").
            throw new CertificateException("not a PEM or DER certificate", e);
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
        return ks;
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
        SSLSocket tls = (SSLSocket) factory.getSslContext().getSocketFactory().createSocket(socket, host, port, true);
        // The factory's protocols, ciphers, SNI and endpoint identification, as for its own sockets and engines.
        tls.setSSLParameters(factory.customize(tls.getSSLParameters()));
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
                    + (certificate ? certificateProblem(e, host) : withoutClassNames(e.getMessage())), e);
        }
        tls.setSoTimeout(before);
        return tls;
    }

    /**
     * Whom the client trusts, whatever key store it presents: Jetty falls back to the key store as trust store
     * (and then ignores trust-all), but a client certificate says nothing about which servers to trust. So: any
     * server with {@code -k}, the {@code --cacert} certificates when given, else the JDK's default trust store.
     */
    private static final class Trust extends SslContextFactory.Client {
        private final boolean anything;
        private final KeyStore certificates;

        Trust(boolean anything, KeyStore certificates) {
            this.anything = anything;
            this.certificates = certificates;
        }

        @Override
        protected TrustManager[] getTrustManagers(KeyStore ignoredTrustStore, Collection<? extends CRL> crls)
                throws Exception {
            if (anything) {
                return TRUST_ALL_CERTS;
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(certificates); // null: the JDK's cacerts
            return tmf.getTrustManagers();
        }
    }

    /** Fails as a person would put it when {@code file} cannot be read at all (the JDK's text is terse). */
    private static void readable(Path file) throws FileSystemException {
        if (Files.isDirectory(file)) {
            throw new FileSystemException(file.toString(), null, "is a directory");
        }
        if (!Files.exists(file)) {
            throw new NoSuchFileException(file.toString());
        }
    }

    /**
     * Why a file option failed, for its message: the reason, prefixed by the file it concerns unless that is
     * {@code named}, the file the message names (a --key file that fails is named again).
     */
    private static String problem(Exception e, Path named) {
        if (e instanceof FileSystemException f) {
            String reason = f instanceof NoSuchFileException ? "no such file or directory"
                    : f instanceof AccessDeniedException ? "permission denied"
                    : f.getReason() == null ? "cannot read it" : f.getReason();
            return (named == null || named.toString().equals(f.getFile()) ? "" : f.getFile() + ": ") + reason;
        }
        return withoutClassNames(e.getMessage());
    }

    /** Why the server's certificate was refused, in a person's words (the JDK's text names its own classes). */
    private static String certificateProblem(SSLException e, String host) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            String m = String.valueOf(c.getMessage());
            if (m.startsWith("No subject alternative") || m.startsWith("No name matching")) {
                return "the server's certificate is not for " + host + " (" + m + ")";
            }
        }
        return "the server's certificate is not trusted (give its CA's certificate with --cacert, or -k to skip "
                + "the check)";
    }

    /** {@code text} without the "java.x.YException: " prefixes the JDK puts in front of wrapped causes. */
    private static String withoutClassNames(String text) {
        return String.valueOf(text).replaceAll("(?:[a-z][a-z0-9_]*\\.)+[A-Z][A-Za-z0-9_$]*(?:Exception|Error): ", "");
    }

    private static boolean causedBy(Throwable t, Class<? extends Throwable> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return true;
            }
        }
        return false;
    }
}
