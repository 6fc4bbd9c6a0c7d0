package io.amqpservlet.client;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Collection;

/**
 * A client key and certificate chain from PEM files, as curl's {@code --cert cert.pem --key key.pem} take them
 * (RFC 7468 text encoding), put into an in-memory key store for the TLS key manager. The key is an unencrypted
 * PKCS #8 {@code PRIVATE KEY} (RSA, EC, EdDSA) or a PKCS #1 {@code RSA PRIVATE KEY}; without a key file the key is
 * looked for in the certificate file, as curl does.
 */
final class PemKeyMaterial {
    /** The password of the in-memory key store and its key entry: it never leaves this process. */
    static final String STORE_PASSWORD = "pem";
    private static final String[] KEY_ALGORITHMS = {"RSA", "EC", "Ed25519", "Ed448", "EdDSA", "DSA"};

    private PemKeyMaterial() {
    }

    /** Whether {@code file} is PEM text (it has a {@code -----BEGIN} line) rather than a binary PKCS12 file. */
    static boolean isPem(Path file) throws IOException {
        byte[] head = new byte[(int) Math.min(4096, Files.size(file))];
        try (var in = Files.newInputStream(file)) {
            int n = in.readNBytes(head, 0, head.length);
            return new String(head, 0, n, StandardCharsets.ISO_8859_1).contains("-----BEGIN ");
        }
    }

    /**
     * A PKCS12 key store with one entry: the key from {@code keyFile} (or from {@code certificateFile} when null)
     * and the certificates of {@code certificateFile}, the client's own first.
     */
    static KeyStore load(Path certificateFile, Path keyFile) throws IOException, GeneralSecurityException {
        String certificateText = Files.readString(certificateFile, StandardCharsets.US_ASCII);
        Collection<? extends Certificate> chain = CertificateFactory.getInstance("X.509")
                .generateCertificates(new ByteArrayInputStream(certificatesOnly(certificateText)
                        .getBytes(StandardCharsets.US_ASCII)));
        if (chain.isEmpty()) {
            throw new GeneralSecurityException("no certificate in " + certificateFile);
        }
        Path keySource = keyFile == null ? certificateFile : keyFile;
        String keyText = keyFile == null ? certificateText : Files.readString(keyFile, StandardCharsets.US_ASCII);
        PrivateKey key = privateKey(keyText, keySource);
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setKeyEntry("client", key, STORE_PASSWORD.toCharArray(), chain.toArray(new Certificate[0]));
        return store;
    }

    /** The CERTIFICATE blocks of {@code text}, without the key or other blocks a combined file may hold. */
    private static String certificatesOnly(String text) {
        StringBuilder certificates = new StringBuilder();
        String begin = "-----BEGIN CERTIFICATE-----";
        String end = "-----END CERTIFICATE-----";
        for (int from = text.indexOf(begin); from >= 0; from = text.indexOf(begin, from)) {
            int to = text.indexOf(end, from);
            if (to < 0) {
                break;
            }
            certificates.append(text, from, to + end.length()).append('\n');
            from = to + end.length();
        }
        return certificates.toString();
    }

    private static PrivateKey privateKey(String text, Path file) throws GeneralSecurityException {
        byte[] pkcs8;
        if (text.contains("-----BEGIN PRIVATE KEY-----")) {
            pkcs8 = block(text, "PRIVATE KEY", file);
        } else if (text.contains("-----BEGIN RSA PRIVATE KEY-----")) {
            if (text.contains("ENCRYPTED")) {
                throw new GeneralSecurityException("the key in " + file + " is encrypted: decrypt it first "
                        + "(openssl pkcs8 -topk8 -nocrypt)");
            }
            pkcs8 = rsaPkcs1ToPkcs8(block(text, "RSA PRIVATE KEY", file));
        } else if (text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----")) {
            throw new GeneralSecurityException("the key in " + file + " is encrypted: decrypt it first "
                    + "(openssl pkcs8 -topk8 -nocrypt)");
        } else if (text.contains("-----BEGIN EC PRIVATE KEY-----")) {
            throw new GeneralSecurityException("the key in " + file + " is a SEC1 EC key: convert it to PKCS #8 "
                    + "(openssl pkcs8 -topk8 -nocrypt)");
        } else {
            throw new GeneralSecurityException("no private key in " + file + " (give one with --key)");
        }
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(pkcs8);
        for (String algorithm : KEY_ALGORITHMS) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (InvalidKeySpecException | java.security.NoSuchAlgorithmException notThisOne) {
                // try the next algorithm: PKCS #8 names it only as an OID
            }
        }
        throw new GeneralSecurityException("the private key in " + file + " is of an unsupported algorithm");
    }

    /** The DER bytes between {@code -----BEGIN label-----} and {@code -----END label-----} (RFC 7468 §2). */
    private static byte[] block(String text, String label, Path file) throws GeneralSecurityException {
        String begin = "-----BEGIN " + label + "-----";
        String end = "-----END " + label + "-----";
        int from = text.indexOf(begin);
        int to = text.indexOf(end, from);
        if (to < 0) {
            throw new GeneralSecurityException("no " + end + " line in " + file);
        }
        try {
            return Base64.getMimeDecoder().decode(text.substring(from + begin.length(), to));
        } catch (IllegalArgumentException e) {
            throw new GeneralSecurityException("bad base64 in the " + label + " of " + file, e);
        }
    }

    /**
     * Wraps a PKCS #1 RSAPrivateKey in a PKCS #8 PrivateKeyInfo (RFC 5208 §5): version 0, the rsaEncryption
     * algorithm identifier (RFC 8017 appendix A.1) and the key as an octet string.
     */
    static byte[] rsaPkcs1ToPkcs8(byte[] pkcs1) {
        byte[] algorithm = {0x30, 0x0d, 0x06, 0x09, 0x2a, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xf7, 0x0d, 0x01,
            0x01, 0x01, 0x05, 0x00};
        byte[] version = {0x02, 0x01, 0x00};
        byte[] octets = der(0x04, pkcs1);
        byte[] body = new byte[version.length + algorithm.length + octets.length];
        System.arraycopy(version, 0, body, 0, version.length);
        System.arraycopy(algorithm, 0, body, version.length, algorithm.length);
        System.arraycopy(octets, 0, body, version.length + algorithm.length, octets.length);
        return der(0x30, body);
    }

    /** One DER element: tag, definite length (X.690 §8.1.3), contents. */
    private static byte[] der(int tag, byte[] contents) {
        int n = contents.length;
        int lengthBytes = n < 0x80 ? 1 : n < 0x100 ? 2 : n < 0x10000 ? 3 : n < 0x1000000 ? 4 : 5;
        byte[] out = new byte[1 + lengthBytes + n];
        out[0] = (byte) tag;
        if (lengthBytes == 1) {
            out[1] = (byte) n;
        } else {
            out[1] = (byte) (0x80 | (lengthBytes - 1));
            for (int i = 0; i < lengthBytes - 1; i++) {
                out[1 + lengthBytes - 1 - i] = (byte) (n >>> (8 * i));
            }
        }
        System.arraycopy(contents, 0, out, 1 + lengthBytes, n);
        return out;
    }
}
