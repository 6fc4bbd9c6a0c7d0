package io.amqpservlet.jetty;

import io.amqpservlet.jetty.internal.exchange.SaslUsers;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * jetty-security is optional (docs/design.md §8): without it on the class path a connection's SASL identity
 * becomes no Jetty authentication, and nothing fails; with it, the identity is the requests' user. The first case
 * runs the library's classes in a class loader of this test's class path minus jetty-security.
 */
class OptionalJettySecurityTest {
    @Test
    void saslIdentityIsTheUserWithJettySecurity() {
        AmqpConnectionFactory factory = new AmqpConnectionFactory();
        assertNotNull(factory.saslUsers().authenticationOf("alice", false));
        assertNull(factory.saslUsers().authenticationOf("anonymous", false), "RFC 4505: ANONYMOUS names no user");
    }

    @Test
    void runsWithoutJettySecurity() throws Throwable {
        List<URL> urls = new ArrayList<>();
        boolean removed = false;
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (Path.of(entry).getFileName().toString().startsWith("jetty-security")) {
                removed = true;
                continue;
            }
            urls.add(Path.of(entry).toUri().toURL());
        }
        assertTrue(removed, "jetty-security is on the test class path, to be left out here");
        try (URLClassLoader withoutSecurity = new URLClassLoader(urls.toArray(new URL[0]),
                ClassLoader.getPlatformClassLoader())) {
            assertFalse(canLoad(withoutSecurity, "org.eclipse.jetty.security.AuthenticationState"));
            Class<?> factoryClass = Class.forName(AmqpConnectionFactory.class.getName(), true, withoutSecurity);
            Object factory = factoryClass.getConstructor().newInstance();
            // Another class loader's package: the factory's package-private method is reached through a lookup
            // that resolves that method alone (reflection would resolve every method, some naming jetty-security).
            Class<?> usersClass = Class.forName(SaslUsers.class.getName(), false, withoutSecurity);
            Object users = MethodHandles.privateLookupIn(factoryClass, MethodHandles.lookup())
                    .findVirtual(factoryClass, "saslUsers", MethodType.methodType(usersClass)).invoke(factory);
            Method of = users.getClass().getMethod("authenticationOf", String.class, boolean.class);
            of.setAccessible(true);
            assertNull(of.invoke(users, "alice", false), "no jetty-security, no authentication");
            // The connection class itself loads and initialises without it.
            Class.forName("io.amqpservlet.jetty.internal.connection.AmqpConnection", true, withoutSecurity);
        }
    }

    private static boolean canLoad(ClassLoader loader, String name) {
        try {
            Class.forName(name, false, loader);
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}
