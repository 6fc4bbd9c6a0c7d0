package io.amqpservlet.client;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The files given to {@code --cacert}, {@code --cert} and {@code --key} that cannot be used: the message says why in a
 * person's words (not the JDK's "signed fields invalid" or "null"), with curl's exit status.
 */
class ClientTlsFilesTest {
    @TempDir
    Path dir;

    private String caProblem(Path file) {
        AmqpClientException e = assertThrows(AmqpClientException.class,
                () -> ClientTls.create(file, false, null, null, null));
        assertEquals(AmqpClientException.CA_CERTIFICATES, e.exitCode(), e.getMessage());
        return e.getMessage();
    }

    private String certificateProblem(Path certificate, Path key, String password) {
        AmqpClientException e = assertThrows(AmqpClientException.class,
                () -> ClientTls.create(null, true, certificate, key, password));
        assertEquals(AmqpClientException.LOCAL_CERTIFICATE, e.exitCode(), e.getMessage());
        return e.getMessage();
    }

    /** A real PKCS12 file, without entries: the kind of file given to --cacert by mistake. */
    private Path pkcs12(String name) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        Path file = dir.resolve(name);
        try (OutputStream out = Files.newOutputStream(file)) {
            store.store(out, "changeit".toCharArray());
        }
        return file;
    }

    @Test
    void anUnusableCaFileSaysWhy() throws Exception {
        Path missing = dir.resolve("missing.pem");
        assertEquals("cannot use --cacert " + missing + ": no such file or directory", caProblem(missing));
        assertEquals("cannot use --cacert " + dir + ": is a directory", caProblem(dir));
        Path text = Files.writeString(dir.resolve("notes.txt"), "hello\n");
        assertEquals("cannot use --cacert " + text + ": not a PEM or DER certificate", caProblem(text));
        Path keyStore = pkcs12("store.p12");
        assertEquals("cannot use --cacert " + keyStore + ": not a PEM or DER certificate", caProblem(keyStore));
    }

    @Test
    void anUnusableCertificateOrKeyFileSaysWhy() throws Exception {
        String expects = " (a PKCS12 file and its password, or PEM certificate and key): ";
        Path missing = dir.resolve("missing.p12");
        assertEquals("cannot use --cert " + missing + expects + "no such file or directory",
                certificateProblem(missing, null, null));
        assertEquals("cannot use --cert " + dir + expects + "is a directory", certificateProblem(dir, null, null));
        Path text = Files.writeString(dir.resolve("notes.txt"), "hello\n");
        assertEquals("cannot use --cert " + text + expects + "not a PKCS12 file or PEM certificate",
                certificateProblem(text, null, null));
        Path keyStore = pkcs12("client.p12");
        assertEquals("cannot use --cert " + keyStore + expects + "wrong password",
                certificateProblem(keyStore, null, "wrong"));
        Path certificate = Files.writeString(dir.resolve("client.pem"), "-----BEGIN CERTIFICATE-----\n");
        Path noKey = dir.resolve("missing.key");
        assertEquals("cannot use --cert " + certificate + " with --key " + noKey + expects + noKey
                + ": no such file or directory", certificateProblem(certificate, noKey, null));
    }
}
