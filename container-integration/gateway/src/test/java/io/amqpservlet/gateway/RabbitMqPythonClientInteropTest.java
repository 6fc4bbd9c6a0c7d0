package io.amqpservlet.gateway;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RabbitMQ 4's Python AMQP 1.0 client ({@code rabbitmq-amqp-python-client} from PyPI, unchanged, in the virtual
 * environment {@code .ci/install-peers} makes) runs {@code src/test/python/rabbitmq_management.py} against the
 * gateway's demo management resource: string message-ids, body-less GET and DELETE requests, queue info read key by
 * key. Fails, rather than skips, when the client is not installed.
 */
@Timeout(120)
class RabbitMqPythonClientInteropTest {
    /** Where {@code .ci/install-peers} puts the client's virtual environment. */
    static final Path VENV = Path.of(System.getProperty("user.home"), ".cache", "amqp-servlet", "rabbitmq-python-venv");

    private static Gateway gateway;

    @BeforeAll
    static void start() throws Exception {
        gateway = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "0", "--http-port", "0",
            "--bind", "127.0.0.1", "--connection-property", "product=RabbitMQ",
            "--connection-property", "version=4.0.0", "--connection-property", "node=amqp-servlet"}));
        gateway.start();
    }

    @AfterAll
    static void stop() throws Exception {
        if (gateway != null) {
            gateway.stop();
        }
    }

    @Test
    void declaresInspectsBindsPurgesAndDeletesThroughTheManagementApi() throws Exception {
        Path python = VENV.resolve("bin/python");
        assertTrue(Files.isExecutable(python), python + " is missing: run .ci/install-peers");
        Path script = Path.of("src/test/python/rabbitmq_management.py").toAbsolutePath();
        String out = run(python.toString(), script.toString(), Integer.toString(gateway.amqpPort()));
        assertEquals("declared\n"
                + "conflict 'ErrPreconditionFailed'\n"
                + "info py q \u00e9;1 QueueType.classic ulong uint Array\n"
                + "bound /bindings/src=py-x;dstq=py%20q%20\u00e9%3B1;key=k%3B1;args=\n"
                + "purged 0\n"
                + "gone 'wrong response code received: 404'\n"
                + "deleted\n"
                + "ok\n", out);
    }

    /** {@return the process's standard output}, after checking that it exits 0 within 60 s */
    private static String run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getOutputStream().close();
        byte[] output = p.getInputStream().readAllBytes(); // until the process ends (or the class timeout)
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the client did not finish");
        String text = new String(output, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), text);
        return text;
    }
}
