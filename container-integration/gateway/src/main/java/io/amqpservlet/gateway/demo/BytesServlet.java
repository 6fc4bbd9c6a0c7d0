package io.amqpservlet.gateway.demo;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;

/**
 * {@code /bytes/{n}}: n bytes of {@code application/octet-stream} where byte i is {@code i mod 251} (a prime, so
 * a shifted or repeated chunk shows), written in chunks of up to 64 KiB with a flush after each, so a streaming
 * response has several data sections. n is capped at 100 MiB.
 */
public final class BytesServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    /** The largest body served. */
    public static final long MAX_BYTES = 100L * 1024 * 1024;
    private static final int CHUNK_BYTES = 64 * 1024;

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String info = request.getPathInfo();
        long n;
        try {
            n = Long.parseLong(info == null ? "" : info.substring(1));
        } catch (NumberFormatException e) {
            n = -1;
        }
        if (n < 0 || n > MAX_BYTES) {
            response.sendError(400, "expected /bytes/{0.." + MAX_BYTES + "}");
            return;
        }
        response.setStatus(200);
        response.setContentType("application/octet-stream");
        response.setContentLengthLong(n);
        ServletOutputStream out = response.getOutputStream();
        byte[] chunk = new byte[(int) Math.min(CHUNK_BYTES, Math.max(n, 1))];
        long i = 0;
        while (i < n) {
            int len = (int) Math.min(chunk.length, n - i);
            for (int k = 0; k < len; k++) {
                chunk[k] = (byte) ((i + k) % 251);
            }
            out.write(chunk, 0, len);
            i += len;
            if (i < n) {
                out.flush();
            }
        }
    }
}
