package io.amqpservlet.gateway.faults;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A Linux network namespace of the test's own, joined to the machine's (root) namespace by veth pairs, each a small
 * point-to-point network: a process run in it ({@link #launcher()}) is reached at the namespace's end of a link, and
 * setting that end down drops every packet on the link, both ways, without a FIN or a RST, as a partitioned network
 * does ({@code tc netem} would need a kernel module that many machines lack). Needs iproute2's {@code ip} and the
 * capabilities to make namespaces and links (CAP_SYS_ADMIN and CAP_NET_ADMIN, which root has): on a machine without
 * them the test is skipped, and says why; on one with them, any command that fails fails the test.
 * {@link #close()} deletes the namespace and its links; one left by a test JVM that was killed is deleted by the next
 * run's first namespace.
 */
public final class NetworkNamespace implements AutoCloseable {
    private static final String PREFIX = "amqp-faults-";
    private static final int CAP_NET_ADMIN = 12;
    private static final int CAP_SYS_ADMIN = 21;
    private static final AtomicInteger COUNT = new AtomicInteger();

    /**
     * One veth pair: {@code rootAddress} on the root namespace's end, {@code address} on the namespace's.
     *
     * @param rootDevice the root namespace's end
     * @param device the namespace's end
     * @param rootAddress the root end's IPv4 address
     * @param address the namespace end's IPv4 address: where a process in the namespace is reached
     */
    public record Link(String rootDevice, String device, String rootAddress, String address) { }

    private final String name;
    private final String devicePrefix;
    private final List<Link> links = new ArrayList<>();

    private NetworkNamespace(String name, String devicePrefix) {
        this.name = name;
        this.devicePrefix = devicePrefix;
    }

    /**
     * Creates a namespace with its loopback up and no link yet; skips the test (a JUnit assumption) on a machine where
     * this process cannot: no {@code ip} command, or not the capabilities.
     */
    public static NetworkNamespace create() throws Exception {
        assumeTrue(run("ip", "-V") == null, "iproute2's `ip` command is not installed: no network namespace to test in");
        long capabilities = effectiveCapabilities();
        assumeTrue((capabilities >> CAP_SYS_ADMIN & 1) == 1 && (capabilities >> CAP_NET_ADMIN & 1) == 1,
                "making a network namespace and its links needs CAP_SYS_ADMIN and CAP_NET_ADMIN (root has both); this"
                        + " process's effective capabilities are 0x" + Long.toHexString(capabilities));
        deleteLeftovers();
        long pid = ProcessHandle.current().pid();
        int n = COUNT.incrementAndGet();
        NetworkNamespace ns = new NetworkNamespace(PREFIX + pid + "-" + n, "aqf" + Long.toHexString(pid) + "x" + n);
        String added = run("ip", "netns", "add", ns.name);
        if (added != null) {
            fail("`ip netns add " + ns.name + "` failed, though this process has the capabilities: " + added);
        }
        try {
            ns.in("ip", "link", "set", "lo", "up");
        } catch (Exception | AssertionError e) {
            ns.close();
            throw e;
        }
        return ns;
    }

    /** The command prefix that runs a program in this namespace. */
    public List<String> launcher() {
        return List.of("ip", "netns", "exec", name);
    }

    /** Adds a veth pair to the root namespace on a /30 of 10.0.0.0/8 no interface of the machine uses. */
    public Link addLink() throws Exception {
        int index = links.size();
        String root = devicePrefix + "r" + index;
        String inside = devicePrefix + "n" + index;
        String[] subnet = freeSubnet();
        Link link = new Link(root, inside, subnet[0], subnet[1]);
        require("ip", "link", "add", root, "type", "veth", "peer", "name", inside);
        links.add(link);
        require("ip", "link", "set", inside, "netns", name);
        require("ip", "addr", "add", link.rootAddress() + "/30", "dev", root);
        require("ip", "link", "set", root, "up");
        in("ip", "addr", "add", link.address() + "/30", "dev", inside);
        in("ip", "link", "set", inside, "up");
        return link;
    }

    /** Sets the namespace's end of {@code link} down: from now on nothing crosses it, and nobody is told. */
    public void cut(Link link) throws Exception {
        in("ip", "link", "set", link.device(), "down");
    }

    /** Sets the namespace's end of {@code link} up again: packets cross it as before. */
    public void heal(Link link) throws Exception {
        in("ip", "link", "set", link.device(), "up");
    }

    private void in(String... command) throws Exception {
        List<String> full = new ArrayList<>(launcher());
        full.addAll(List.of(command));
        require(full.toArray(new String[0]));
    }

    @Override
    public void close() throws Exception {
        // Deleting the namespace deletes the namespace's ends, and with them the pairs' root ends.
        String deleted = run("ip", "netns", "delete", name);
        if (deleted != null) {
            throw new IOException("ip netns delete " + name + " failed: " + deleted);
        }
    }

    /** A /30 in 10.0.0.0/8 that no address of the root namespace is in: {host .1, host .2}. */
    private static String[] freeSubnet() throws Exception {
        String used = output("ip", "-4", "-o", "addr", "show");
        for (int attempt = 0; attempt < 100; attempt++) {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            String net = "10." + (100 + random.nextInt(100)) + "." + random.nextInt(256) + ".";
            int base = random.nextInt(64) * 4;
            if (!used.contains("inet " + net)) {
                return new String[] {net + (base + 1), net + (base + 2)};
            }
        }
        throw new IOException("no free /30 found in 10.100.0.0 to 10.199.255.255 beside: " + used);
    }

    /** The CapEff mask of this process ({@code /proc/self/status}); 0 when it cannot be read. */
    private static long effectiveCapabilities() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("CapEff:")) {
                    return Long.parseUnsignedLong(line.substring("CapEff:".length()).trim(), 16);
                }
            }
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
        return 0;
    }

    /** Namespaces of earlier test JVMs that ended without deleting theirs. */
    private static void deleteLeftovers() throws Exception {
        String list = output("ip", "netns", "list");
        if (list == null) {
            return;
        }
        for (String line : list.split("\n")) {
            String ns = line.split(" ")[0];
            if (!ns.startsWith(PREFIX)) {
                continue;
            }
            String[] parts = ns.substring(PREFIX.length()).split("-");
            long pid;
            try {
                pid = Long.parseLong(parts[0]);
            } catch (NumberFormatException e) {
                continue;
            }
            if (ProcessHandle.of(pid).isEmpty()) {
                run("ip", "netns", "delete", ns);
            }
        }
    }

    private static void require(String... command) throws Exception {
        String failed = run(command);
        if (failed != null) {
            fail(String.join(" ", command) + " failed: " + failed);
        }
    }

    /** Runs {@code command}; null when it succeeded, else its exit status and what it printed. */
    private static String run(String... command) throws Exception {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            return e.toString();
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return "did not end within 30 s";
        }
        return p.exitValue() == 0 ? null : "exit " + p.exitValue() + ": " + out;
    }

    private static String output(String... command) throws Exception {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            return "";
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(30, TimeUnit.SECONDS);
        return out;
    }
}
