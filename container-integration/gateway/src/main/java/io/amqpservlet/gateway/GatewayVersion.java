package io.amqpservlet.gateway;

import picocli.CommandLine.IVersionProvider;

/** {@code --version}: the gateway's version from the jar's manifest, and the Java runtime. */
final class GatewayVersion implements IVersionProvider {
    @Override
    public String[] getVersion() {
        String version = GatewayMain.class.getPackage().getImplementationVersion();
        return new String[] {"amqp-servlet " + (version == null ? "(development build)" : version),
            "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")"};
    }
}
