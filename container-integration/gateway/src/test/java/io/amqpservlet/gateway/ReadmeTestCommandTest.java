package io.amqpservlet.gateway;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * README.md's promises about running the tests: one command under "Run all tests", the one CI runs (the last command
 * of {@code .ci/run}), a script that installs what the tests need before it runs Maven; and Quick start first.
 */
class ReadmeTestCommandTest {
    private static final Path ROOT = Path.of("..", "..");

    private static String section(String page, String heading) {
        int start = page.indexOf("\n## " + heading + "\n");
        assertTrue(start >= 0, "no section " + heading);
        int end = page.indexOf("\n## ", start + 1);
        return page.substring(start, end < 0 ? page.length() : end);
    }

    @Test
    void ciRunsTheTestCommandTheReadmeShows() throws Exception {
        String run = section(Files.readString(ROOT.resolve("README.md")), "Run all tests");
        int block = run.indexOf("```\n") + 4;
        List<String> lines = run.substring(block, run.indexOf("```", block)).strip().lines().toList();
        assertEquals(1, lines.size(), "one command: " + lines);
        String command = lines.get(0);

        List<String> ci = Files.readAllLines(ROOT.resolve(".ci/run")).stream()
                .filter(l -> !l.isBlank() && !l.startsWith("#") && !l.startsWith(" ") && !l.equals("fi")).toList();
        assertEquals(command, ci.get(ci.size() - 1), ".ci/run's last command");

        // The command installs the peers the interop tests need, then runs the Maven build.
        String script = Files.readString(ROOT.resolve(command.split(" ")[0]));
        int peers = script.indexOf("\n.ci/install-peers\n");
        assertTrue(peers > 0 && script.indexOf("mvn -B -ntp verify", peers) > peers, script);
    }

    @Test
    void quickStartComesFirst() throws Exception {
        String readme = Files.readString(ROOT.resolve("README.md"));
        int quickStart = readme.indexOf("\n## Quick start\n");
        assertTrue(quickStart > 0 && quickStart == readme.indexOf("\n## "), "Quick start is the first section");
    }
}
