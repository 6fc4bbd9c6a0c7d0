package io.amqpservlet.bench;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CodecReportTest {
    private static String run(String method, String score, String unit, String norm) {
        String secondary = norm == null ? "{}"
                : "{\"gc.alloc.rate\":{\"score\":1.0,\"scoreUnit\":\"MB/sec\"},"
                + "\"gc.alloc.rate.norm\":{\"score\":" + norm + ",\"scoreError\":\"NaN\",\"scoreUnit\":\"B/op\"}}";
        return "{\"benchmark\":\"io.amqpservlet.bench.codec.X." + method + "\",\"mode\":\"avgt\","
                + "\"primaryMetric\":{\"score\":" + score + ",\"scoreError\":0.5,\"scoreConfidence\":[1,2],"
                + "\"scoreUnit\":\"" + unit + "\",\"rawData\":[[1.0,2.0]]},\"secondaryMetrics\":" + secondary + "}";
    }

    private static String line(String table, String startsWith) {
        // Compare with runs of spaces collapsed: column widths are not the point.
        for (String l : table.split("\n")) {
            String collapsed = l.trim().replaceAll(" +", " ");
            if (collapsed.startsWith(startsWith)) {
                return collapsed;
            }
        }
        throw new AssertionError("no line starting with " + startsWith + " in\n" + table);
    }

    @Test
    void computesSpeedUpAsPeerTimeOverOurs() {
        String json = "[" + run("w_ours_encode", "10.0", "ns/op", "0.0001") + ","
                + run("w_protonj2_encode", "85.0", "ns/op", "96.0") + ","
                + run("w_protonj_encode", "0.2", "us/op", "120.4") + "]";
        String table = CodecReport.render(json);
        assertEquals("w encode 10.0 85.0 200 0 96 120 8.5x 20.0x", line(table, "w "));
    }

    @Test
    void comparesOurScanWithThePeersDecode() {
        String json = "[" + run("w_ours_decode", "50", "ns/op", "300") + ","
                + run("w_ours_scan", "25", "ns/op", "0") + ","
                + run("w_protonj2_decode", "500", "ns/op", "900") + ","
                + run("w_protonj_decode", "1000", "ns/op", "1500") + "]";
        String table = CodecReport.render(json);
        assertEquals("w decode 50.0 500 1000 300 900 1500 10.0x 20.0x", line(table, "w decode"));
        assertEquals("w scan 25.0 - - 0 - - 20.0x* 40.0x*", line(table, "w scan"));
        assertTrue(table.contains("* compared with the peer's encode or decode"));
    }

    @Test
    void comparesOurEncodeAndDecodeVariantsWithThePeersEncodeAndDecode() {
        String json = "[" + run("w_ours_encode", "40", "ns/op", "0") + ","
                + run("w_ours_encodePreencoded", "20", "ns/op", "0") + ","
                + run("w_ours_decodeCached", "50", "ns/op", "100") + ","
                + run("w_protonj2_encode", "400", "ns/op", "900") + ","
                + run("w_protonj_encode", "800", "ns/op", "900") + ","
                + run("w_protonj2_decode", "500", "ns/op", "900") + ","
                + run("w_protonj_decode", "1000", "ns/op", "1500") + "]";
        String table = CodecReport.render(json);
        assertEquals("w encodePreencoded 20.0 - - 0 - - 20.0x* 40.0x*", line(table, "w encodePreencoded"));
        assertEquals("w decodeCached 50.0 - - 100 - - 10.0x* 20.0x*", line(table, "w decodeCached"));
        String collapsed = table.replaceAll(" +", " ");
        assertTrue(collapsed.indexOf("w encode ") < collapsed.indexOf("w encodePreencoded ")
                && collapsed.indexOf("w encodePreencoded ") < collapsed.indexOf("w decodeCached "), table);
    }

    @Test
    void showsMissingAllocationDataAndIgnoresOtherBenchmarks() {
        String json = "[" + run("w_ours_encode", "10", "ns/op", null) + ","
                + run("someOtherBenchmark", "10", "ns/op", null) + "]";
        String table = CodecReport.render(json);
        assertEquals("w encode 10.0 - - n/a - - - -", line(table, "w "));
        assertTrue(!table.contains("someOtherBenchmark"));
    }

    @Test
    void rejectsATruncatedFile() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CodecReport.render("[" + run("w_ours_encode", "10", "ns/op", null).substring(0, 40)));
        assertTrue(e.getMessage().contains("offset"), e.getMessage());
    }
}
