package io.amqpservlet.gateway;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/gateway.md's TLS steps as a user pastes them: the {@code keytool} commands run in an empty directory, then
 * the gateway and the request with the key stores they made (the gateway in-process on a free port instead of
 * 5671, file names resolved in that directory). The request is served to alice's certificate.
 */
@Timeout(120)
class TlsKeyStoreStepsTest {
    private static final Path PAGE = Path.of("..", "..", "docs", "gateway.md");

    @TempDir
    Path dir;

    /** The command lines of the section's code blocks, continuation lines joined. */
    private static List<String> commands() throws Exception {
        String page = Files.readString(PAGE);
        int start = page.indexOf("### TLS: the key stores");
        String section = page.substring(start, page.indexOf("\n#", start + 1));
        List<String> commands = new ArrayList<>();
        Matcher m = Pattern.compile("(?ms)^```\\n(.*?)^```$").matcher(section);
        while (m.find()) {
            for (String line : m.group(1).replaceAll("\\\\\\n\\s*", " ").split("\n")) {
                if (!line.isBlank()) {
                    commands.add(line.trim());
                }
            }
        }
        return commands;
    }

    /** Words as a shell splits them (double-quoted strings are one word). */
    private static List<String> words(String line) {
        List<String> words = new ArrayList<>();
        Matcher m = Pattern.compile("\"([^\"]*)\"|(\\S+)").matcher(line);
        while (m.find()) {
            words.add(m.group(1) != null ? m.group(1) : m.group(2));
        }
        return words;
    }

    /** The words after the launcher, with the page's file names as files of {@code dir}. */
    private String[] arguments(List<String> words, int from) {
        List<String> args = new ArrayList<>();
        for (String w : words.subList(from, words.size())) {
            args.add(w.matches("[a-z]+\\.(p12|pem)(:.*)?") ? dir.resolve(w).toString() : w); // alice.p12:changeit too
        }
        return args.toArray(new String[0]);
    }

    @Test
    void theKeyStoresMadeAsShownServeAlicesCertificate() throws Exception {
        List<String> commands = commands();
        int i = 0;
        for (; commands.get(i).startsWith("keytool "); i++) {
            List<String> command = new ArrayList<>(words(commands.get(i)));
            command.set(0, Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
            Process keytool = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
            String printed = new String(keytool.getInputStream().readAllBytes());
            assertTrue(keytool.waitFor(60, TimeUnit.SECONDS), commands.get(i));
            assertEquals(0, keytool.exitValue(), commands.get(i) + ": " + printed);
        }
        assertEquals(5, i, "keytool commands: " + commands);
        for (String file : List.of("server.p12", "server.pem", "alice.p12", "clients.p12")) {
            assertTrue(Files.isRegularFile(dir.resolve(file)), file);
        }

        List<String> gatewayLine = words(commands.get(i).replace("--amqps-port 5671", "--amqps-port 0"));
        assertEquals("bin/amqp-servlet", gatewayLine.get(0));
        Gateway gateway = new Gateway(GatewayOptions.parse(arguments(gatewayLine, 1)));
        gateway.start();
        try {
            List<String> requestLine = words(commands.get(i + 1)
                    .replace("localhost:5671", "localhost:" + gateway.amqpsPort()));
            assertEquals(List.of("bin/amqp-servlet", "request"), requestLine.subList(0, 2));
            Cli r = Cli.request(arguments(requestLine, 2));
            assertEquals(0, r.exit, r.toString());
            assertEquals("CN=alice,OU=dev,O=Example", r.text().trim());
        } finally {
            gateway.stop();
        }
    }
}
