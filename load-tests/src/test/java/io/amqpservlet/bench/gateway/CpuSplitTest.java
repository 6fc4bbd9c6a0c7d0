package io.amqpservlet.bench.gateway;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class CpuSplitTest {
    @Test
    void readsLinuxCpuLists() {
        assertEquals(List.of(0, 1), CpuSplit.parseList("0-1"));
        assertEquals(List.of(0, 2, 3, 4, 7), CpuSplit.parseList("0,2-4,7"));
        assertEquals(List.of(5), CpuSplit.parseList("5"));
    }

    /** A real process, pinned and given its CPUs back, as the brokered rows do with the broker and the others. */
    @Test
    void pinsAProcessToTheBrokersCpusAndGivesThemBack() throws Exception {
        CpuSplit split = CpuSplit.ofThisProcess();
        Assumptions.assumeTrue(split != null, "fewer than two CPUs here");
        Process p = new ProcessBuilder("sleep", "30").start();
        try {
            split.pinBroker(p.pid());
            assertEquals(CpuSplit.parseList(split.broker()), allowed(p.pid()));
            split.pinOther(p.pid());
            assertEquals(CpuSplit.parseList(split.others()), allowed(p.pid()));
            split.release(p.pid());
            assertEquals(allowed(ProcessHandle.current().pid()), allowed(p.pid()));
        } finally {
            p.destroy();
        }
    }

    private static List<Integer> allowed(long pid) throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("Cpus_allowed_list:")) {
                return CpuSplit.parseList(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        throw new AssertionError("no Cpus_allowed_list for " + pid);
    }
}
