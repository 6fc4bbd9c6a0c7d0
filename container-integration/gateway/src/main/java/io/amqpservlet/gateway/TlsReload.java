package io.amqpservlet.gateway;

import org.eclipse.jetty.util.component.AbstractLifeCycle;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Enumeration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Reloads the TLS configurations made from one set of key and trust store files when a store changes on disk
 * ({@code --tls-reload-interval}), so that a certificate renewed in place (by certbot, cert-manager or a Kubernetes
 * secret) is used without a restart: connections made from then on get it, connections already open keep theirs.
 * Ports that share their stores (AMQPS and HTTPS both from {@code --tls-*}) share one: the files are read once per
 * interval, every configuration made from them is reloaded, and one log line names them all.
 *
 * <p>Every interval it reads each store's bytes and compares their SHA-256 digest with the last it saw. A digest,
 * not a modification time or a file event: a Kubernetes secret is renewed by pointing a symbolic link at a new
 * directory, which changes neither the file the path names nor its time, and the path is followed anew at each read.
 * A store that changed is loaded with its password first; only when that works (and a key store holds a key) is
 * the TLS configuration reloaded. A store that does not load (written half, a wrong password, no key) is reported
 * once, as a WARN line, and the configuration in use stays; it is looked at again when its bytes change again.
 */
final class TlsReload extends AbstractLifeCycle {
    private static final Logger LOG = LoggerFactory.getLogger(TlsReload.class);

    /** One store file, with what it was when last looked at. */
    private static final class Store {
        final String option;
        final Path path;
        final String type;
        final char[] password;
        final boolean keys;
        /** The digest of the bytes last looked at (loaded, or refused), or null before the first look. */
        byte[] digest;

        Store(String option, String path, String type, String password, boolean keys) {
            this.option = option;
            this.path = Path.of(path);
            this.type = type == null ? KeyStore.getDefaultType() : type;
            this.password = password == null ? new char[0] : password.toCharArray();
            this.keys = keys;
        }

        /** The same file, read the same way (the option that named it aside). */
        boolean sameAs(Store other) {
            return keys == other.keys && path.equals(other.path) && type.equals(other.type)
                    && Arrays.equals(password, other.password);
        }
    }

    /** What each configuration serves ({@code --amqps-port}, {@code --https-port}, {@code --attach}), in order. */
    private final List<String> names = new ArrayList<>();
    /** The configurations made from the stores, one per name. */
    private final List<SslContextFactory> configurations = new ArrayList<>();
    /** The names joined, for the log. */
    private String name;
    private final Scheduler scheduler;
    private final long intervalMillis;
    private final List<Store> stores = new ArrayList<>();
    private volatile Scheduler.Task task;
    private volatile long reloads;
    /** The certificate of the key store's key in use, or null (no key store, or it did not load). */
    private volatile X509Certificate served;
    private volatile long refusals;

    /**
     * Watches nothing yet: {@link #keyStore} and {@link #trustStore} say what.
     *
     * @param name           what the configuration serves, for the log ({@code --amqps-port}, {@code --attach})
     * @param tls            the configuration to reload
     * @param scheduler      runs the checks
     * @param intervalMillis how often to look, in milliseconds; 0 for never (the certificate served is still known)
     */
    TlsReload(String name, SslContextFactory tls, Scheduler scheduler, long intervalMillis) {
        if (intervalMillis < 0) {
            throw new IllegalArgumentException("interval must not be negative: " + intervalMillis);
        }
        this.names.add(name);
        this.configurations.add(tls);
        this.name = name;
        this.scheduler = scheduler;
        this.intervalMillis = intervalMillis;
    }

    /** Watches the configuration's key store, {@code path} as {@code option} gave it (none when null). */
    TlsReload keyStore(String option, String path, String password) {
        if (path == null) {
            return this;
        }
        stores.add(new Store(option, path, configurations.get(0).getKeyStoreType(), password, true));
        return this;
    }

    /** Watches the configuration's trust store, {@code path} as {@code option} gave it (none when null). */
    TlsReload trustStore(String option, String path, String password) {
        if (path == null) {
            return this;
        }
        SslContextFactory tls = configurations.get(0);
        String type = tls.getTrustStoreType() != null ? tls.getTrustStoreType() : tls.getKeyStoreType();
        stores.add(new Store(option, path, type, password, false));
        return this;
    }

    /** Whether {@code other} watches the same store files, read the same way: then one of them does for both. */
    boolean sameStoresAs(TlsReload other) {
        if (stores.size() != other.stores.size()) {
            return false;
        }
        for (int i = 0; i < stores.size(); i++) {
            if (!stores.get(i).sameAs(other.stores.get(i))) {
                return false;
            }
        }
        return true;
    }

    /** Reloads {@code other}'s configurations too, when its stores change ({@link #sameStoresAs}); before start. */
    void alsoFor(TlsReload other) {
        if (!sameStoresAs(other)) {
            throw new IllegalArgumentException(other.name + " watches other stores than " + name);
        }
        names.addAll(other.names);
        configurations.addAll(other.configurations);
        // Two attachments with the same stores are both "--attach": named once.
        name = String.join(" and ", new LinkedHashSet<>(names));
    }

    /** Whether it has a key store: a certificate it serves (or presents, for an attachment). */
    boolean hasKeyStore() {
        return stores.stream().anyMatch(s -> s.keys);
    }

    /** Whether it looks at its stores again and again ({@code --tls-reload-interval} above 0). */
    boolean checks() {
        return intervalMillis > 0;
    }

    /** Whether there is a store to watch: a configuration of the JVM's trust alone has none. */
    boolean watchesAny() {
        return !stores.isEmpty();
    }

    /** {@return how many times the configuration was reloaded} */
    long reloads() {
        return reloads;
    }

    /** {@return how many changed stores were refused (did not load), the configuration in use kept} */
    long refusals() {
        return refusals;
    }

    /** {@return what the configurations serve, one name each (two attachments: twice), for the metrics' labels} */
    List<String> names() {
        return List.copyOf(names);
    }

    /** {@return the certificate of the key in use, or null when there is no key store (a client's trust alone)} */
    X509Certificate servedCertificate() {
        return served;
    }

    @Override
    protected void doStart() throws Exception {
        for (Store s : stores) {
            byte[] bytes = read(s);
            s.digest = bytes == null ? null : sha256(bytes); // what the configuration loaded at its start
            if (s.keys && bytes != null) {
                try {
                    served = firstKeyCertificate(load(s, bytes), s.password);
                } catch (IOException | GeneralSecurityException e) {
                    served = null; // the TLS configuration itself reports a store it cannot use
                }
            }
        }
        if (served != null) {
            LOG.info("TLS for {} serves {} (valid until {})", name, served.getSubjectX500Principal().getName(),
                    served.getNotAfter().toInstant());
        }
        if (intervalMillis > 0) {
            schedule();
        }
        super.doStart();
    }

    @Override
    protected void doStop() throws Exception {
        Scheduler.Task t = task;
        if (t != null) {
            t.cancel();
        }
        super.doStop();
    }

    private void schedule() {
        task = scheduler.schedule(this::check, intervalMillis, TimeUnit.MILLISECONDS);
    }

    /** The scheduler's thread: looks at every store, reloads when one changed and all load, then looks again later. */
    private void check() {
        if (!isRunning()) {
            return;
        }
        try {
            checkOnce();
        } catch (RuntimeException e) {
            LOG.warn("TLS reload for {}: {}", name, e.toString());
        } finally {
            if (isRunning()) {
                schedule();
            }
        }
    }

    /** Looks at the stores once; package-private for tests. */
    void checkOnce() {
        boolean changed = false;
        String refused = null;
        X509Certificate served = null; // the key store's certificate, when it changed
        for (Store s : stores) {
            byte[] bytes;
            try {
                bytes = Files.readAllBytes(s.path);
            } catch (IOException e) {
                // Mid-renewal a path may be missing for a moment; it is read again at the next check.
                continue;
            }
            byte[] d = sha256(bytes);
            if (Arrays.equals(d, s.digest)) {
                continue;
            }
            s.digest = d;
            changed = true;
            try {
                KeyStore ks = load(s, bytes);
                if (s.keys) {
                    served = firstKeyCertificate(ks, s.password);
                    if (served == null) {
                        refused = describe(s) + " holds no private key";
                    }
                }
            } catch (IOException | GeneralSecurityException e) {
                // A store cut short says only EOFException, without a message.
                refused = describe(s) + " does not load: "
                        + (e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName());
            }
        }
        if (!changed) {
            return;
        }
        if (refused != null) {
            refusals++;
            LOG.warn("TLS for {} not reloaded: {}; the previous certificates stay in use", name, refused);
            return;
        }
        boolean failed = false;
        for (int i = 0; i < configurations.size(); i++) {
            try {
                configurations.get(i).reload(f -> { });
            } catch (Exception e) {
                failed = true;
                LOG.warn("TLS for {} failed to reload: {}", names.get(i), e.toString());
            }
        }
        if (failed) {
            refusals++;
            for (Store s : stores) {
                s.digest = null; // try again at the next check (all of them: reloading one twice does no harm)
            }
            return;
        }
        reloads++;
        if (served != null) {
            this.served = served;
            LOG.info("TLS for {} reloaded: serving {} (valid until {})", name,
                    served.getSubjectX500Principal().getName(), served.getNotAfter().toInstant());
        } else {
            LOG.info("TLS for {} reloaded: new trust store", name);
        }
    }

    private static String describe(Store s) {
        return s.option + " " + s.path;
    }

    private static X509Certificate firstKeyCertificate(KeyStore ks, char[] password) throws GeneralSecurityException {
        for (Enumeration<String> aliases = ks.aliases(); aliases.hasMoreElements(); ) {
            String alias = aliases.nextElement();
            if (ks.isKeyEntry(alias) && ks.getKey(alias, password) != null) {
                Certificate c = ks.getCertificate(alias);
                if (c instanceof X509Certificate x) {
                    return x;
                }
            }
        }
        return null;
    }

    private static byte[] read(Store s) {
        try {
            return Files.readAllBytes(s.path);
        } catch (IOException e) {
            return null;
        }
    }

    private static KeyStore load(Store s, byte[] bytes) throws IOException, GeneralSecurityException {
        KeyStore ks = KeyStore.getInstance(s.type);
        ks.load(new ByteArrayInputStream(bytes), s.password);
        return ks;
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
