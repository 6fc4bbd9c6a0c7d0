package io.amqpservlet.jetty;

import org.apache.activemq.artemis.api.core.QueueConfiguration;
import org.apache.activemq.artemis.api.core.RoutingType;
import org.apache.activemq.artemis.core.config.Configuration;
import org.apache.activemq.artemis.core.config.impl.ConfigurationImpl;
import org.apache.activemq.artemis.core.config.impl.SecurityConfiguration;
import org.apache.activemq.artemis.core.security.Role;
import org.apache.activemq.artemis.core.server.embedded.EmbeddedActiveMQ;
import org.apache.activemq.artemis.core.server.plugin.ActiveMQServerBasePlugin;
import org.apache.activemq.artemis.core.settings.impl.AddressSettings;
import org.apache.activemq.artemis.spi.core.security.ActiveMQJAASSecurityManager;
import org.apache.activemq.artemis.spi.core.security.jaas.InVMLoginModule;
import org.apache.activemq.artemis.spi.core.security.jaas.TextFileCertificateLoginModule;

import javax.security.auth.login.AppConfigurationEntry;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * A real ActiveMQ Artemis broker in this JVM with security on, for the attach-mode tests of who sends and who
 * attaches: users with passwords (SASL PLAIN, all in role {@code amqp}, which may do everything but manage), optional
 * broker plugins (the user-id check of docs/attach.md), and optionally an AMQP acceptor with TLS that needs a client
 * certificate and offers SASL EXTERNAL only, whose certificates log in through Artemis' own
 * {@code TextFileCertificateLoginModule} (a subject DN mapped to a user name and its roles), as a broker's
 * {@code login.config} would configure it.
 */
public final class SecuredArtemis implements AutoCloseable {
    public static final String ROLE = "amqp";

    private final Map<String, String> users = new LinkedHashMap<>();
    private final Map<String, String> certificateUsers = new LinkedHashMap<>();
    private final java.util.List<ActiveMQServerBasePlugin> plugins = new java.util.ArrayList<>();
    private final String[] queues;
    private Path dir;
    private TestCertificates tls;
    private int port;
    private int tlsPort = -1;
    private EmbeddedActiveMQ broker;

    public SecuredArtemis(String... queues) {
        this.queues = queues;
    }

    /** A user that logs in with SASL PLAIN. */
    public SecuredArtemis user(String name, String password) {
        users.put(name, password);
        return this;
    }

    /** A broker plugin, such as the user-id check. */
    public SecuredArtemis plugin(ActiveMQServerBasePlugin plugin) {
        plugins.add(plugin);
        return this;
    }

    /**
     * A TLS acceptor with the server certificate of {@code certificates}, needing a client certificate its trust
     * store holds, and offering SASL EXTERNAL only; the client certificate of {@code certificates} logs in as
     * {@code user}.
     */
    public SecuredArtemis tlsWithClientCertificates(TestCertificates certificates, String user) {
        this.tls = certificates;
        certificateUsers.put(user, null);
        return this;
    }

    public SecuredArtemis start() throws Exception {
        dir = Files.createTempDirectory("artemis-secured");
        port = freePort();
        Configuration config = new ConfigurationImpl()
                .setPersistenceEnabled(false)
                .setSecurityEnabled(true)
                .setJMXManagementEnabled(false)
                .setJournalDirectory(dir.resolve("journal").toString())
                .setBindingsDirectory(dir.resolve("bindings").toString())
                .setPagingDirectory(dir.resolve("paging").toString())
                .setLargeMessagesDirectory(dir.resolve("large").toString())
                .addAcceptorConfiguration("amqp", "tcp://127.0.0.1:" + port + "?protocols=AMQP");
        // Role amqp: send, consume, create and delete queues (durable or not, the reply queues of clients),
        // browse, create and delete addresses; no management.
        config.putSecurityRoles("#", Set.of(new Role(ROLE, true, true, true, true, true, true, false, true, true,
                true, false, false)));
        for (String queue : queues) {
            config.addQueueConfiguration(QueueConfiguration.of(queue).setAddress(queue)
                    .setRoutingType(RoutingType.ANYCAST).setDurable(false));
        }
        config.addAddressSetting("#", new AddressSettings().setDefaultAddressRoutingType(RoutingType.ANYCAST)
                .setDefaultQueueRoutingType(RoutingType.ANYCAST).setAutoCreateQueues(true)
                .setAutoCreateAddresses(true));
        for (ActiveMQServerBasePlugin plugin : plugins) {
            config.registerBrokerPlugin(plugin);
        }
        // Artemis' in-VM login: the configuration's name is the login module's class (SecurityConfiguration's entry).
        SecurityConfiguration passwords = new SecurityConfiguration();
        for (Map.Entry<String, String> user : users.entrySet()) {
            passwords.addUser(user.getKey(), user.getValue());
            passwords.addRole(user.getKey(), ROLE);
        }
        ActiveMQJAASSecurityManager security;
        if (tls != null) {
            tlsPort = freePort();
            config.addAcceptorConfiguration("amqps", "tcp://127.0.0.1:" + tlsPort + "?protocols=AMQP;sslEnabled=true;"
                    + "needClientAuth=true;saslMechanisms=EXTERNAL;"
                    + "keyStorePath=" + tls.serverKeyStore + ";keyStorePassword=" + TestCertificates.PASSWORD
                    + ";keyStoreType=PKCS12;trustStorePath=" + tls.serverTrustStore + ";trustStorePassword="
                    + TestCertificates.PASSWORD + ";trustStoreType=PKCS12");
            security = new ActiveMQJAASSecurityManager(InVMLoginModule.class.getName(), "certificates", passwords,
                    certificateLogins(certificateUsers.keySet().iterator().next()));
        } else {
            security = new ActiveMQJAASSecurityManager(InVMLoginModule.class.getName(), passwords);
        }
        broker = new EmbeddedActiveMQ();
        broker.setConfiguration(config);
        broker.setSecurityManager(security);
        broker.start();
        return this;
    }

    /**
     * Artemis' certificate login: cert-users.properties maps a user name to its certificate's subject DN (as the
     * broker reads it from the certificate), cert-roles.properties a role to its users.
     */
    private SecurityConfiguration certificateLogins(String user) throws Exception {
        KeyStore clientStore = KeyStore.getInstance("PKCS12");
        try (var in = Files.newInputStream(tls.clientKeyStore)) {
            clientStore.load(in, TestCertificates.PASSWORD.toCharArray());
        }
        @SuppressWarnings("deprecation") // the form TextFileCertificateLoginModule compares with
        String dn = ((X509Certificate) clientStore.getCertificate("client")).getSubjectDN().getName();
        Properties certUsers = new Properties();
        certUsers.setProperty(user, dn);
        Properties certRoles = new Properties();
        certRoles.setProperty(ROLE, user);
        try (OutputStream out = Files.newOutputStream(dir.resolve("cert-users.properties"))) {
            certUsers.store(out, null);
        }
        try (OutputStream out = Files.newOutputStream(dir.resolve("cert-roles.properties"))) {
            certRoles.store(out, null);
        }
        Map<String, Object> options = Map.of("baseDir", dir.toString(),
                "org.apache.activemq.jaas.textfiledn.user", "cert-users.properties",
                "org.apache.activemq.jaas.textfiledn.role", "cert-roles.properties");
        return new SecurityConfiguration() {
            @Override
            public AppConfigurationEntry[] getAppConfigurationEntry(String name) {
                return new AppConfigurationEntry[] {new AppConfigurationEntry(
                        TextFileCertificateLoginModule.class.getName(),
                        AppConfigurationEntry.LoginModuleControlFlag.REQUIRED, options)};
            }
        };
    }

    public int port() {
        return port;
    }

    /** The TLS acceptor's port, or -1 without one. */
    public int tlsPort() {
        return tlsPort;
    }

    /** The messages waiting in {@code queue} plus those delivered and not settled. */
    public long messageCount(String queue) {
        var q = broker.getActiveMQServer().locateQueue(
                org.apache.activemq.artemis.api.core.SimpleString.of(queue));
        return q == null ? 0 : q.getMessageCount();
    }

    /** The users the broker's sessions logged in as now (validated by its security manager). */
    public Set<String> sessionUsers() {
        Set<String> users = new java.util.TreeSet<>();
        for (var session : broker.getActiveMQServer().getSessions()) {
            if (session.getValidatedUser() != null) {
                users.add(session.getValidatedUser());
            }
        }
        return users;
    }

    private static int freePort() throws java.io.IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Override
    public void close() throws Exception {
        if (broker != null) {
            broker.stop();
            broker = null;
        }
        if (dir != null) {
            try (java.util.stream.Stream<Path> files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
