package io.amqpservlet.bench.load;

import picocli.CommandLine.IVersionProvider;

/** {@code --version}: the project version from the jar's manifest, and the Java runtime. */
final class BenchVersion implements IVersionProvider {
    @Override
    public String[] getVersion() {
        String version = LoadMain.class.getPackage().getImplementationVersion();
        return new String[] {"amqp-servlet bench " + (version == null ? "(development build)" : version),
            "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")"};
    }
}
