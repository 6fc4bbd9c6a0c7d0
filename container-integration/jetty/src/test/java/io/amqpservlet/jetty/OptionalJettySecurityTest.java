package io.amqpservlet.jetty;

import io.amqpservlet.jetty.internal.connection.SaslUserAuthentication;
import org.junit.jupiter.api.Test;

import java.io.File;
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
        assertNotNull(SaslUserAuthentication.available().of("alice", null));
        assertNull(SaslUserAuthentication.available().of("anonymous", null), "RFC 4505: ANONYMOUS names no user");
    }

    @Test
    void runsWithoutJettySecurity() throws Exception {
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
            Class<?> users = Class.forName("io.amqpservlet.jetty.internal.connection.SaslUserAuthentication", true, withoutSecurity);
            // Another class loader's package: its package-private interface is reached reflectively.
            Method available = users.getMethod("available");
            available.setAccessible(true);
            Object none = available.invoke(null);
            Method of = users.getMethod("of", String.class, Object.class);
            of.setAccessible(true);
            assertNull(of.invoke(none, "alice", null), "no jetty-security, no authentication");
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
