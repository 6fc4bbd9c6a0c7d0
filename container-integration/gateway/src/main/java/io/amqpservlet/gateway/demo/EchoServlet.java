package io.amqpservlet.gateway.demo;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.util.Enumeration;
import java.util.Locale;

/**
 * {@code /echo} and every path under {@code /echo/}: any method gets 200 with the request body, content type and
 * content encoding back. The headers {@code x-echo-method}, {@code x-echo-path} (the request URI and query as the servlet saw them,
 * still percent-encoded: {@code /echo/a%20b?x=1}) and {@code x-echo-path-info} (the path below {@code /echo},
 * decoded: {@code /a b}; absent for {@code /echo} itself, and when it holds a control character) say what arrived,
 * and every request header whose name starts with {@code x-} is copied into the response.
 */
public final class EchoServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private static final int SMALL_BODY_BYTES = 64 * 1024;

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        // With a declared length, read into an array of exactly that size: readAllBytes() starts with 8 KiB and
        // more buffers, which would dominate the allocation of a small request (the benchmarks use /echo).
        int length = request.getContentLength();
        byte[] body;
        if (length >= 0 && length <= SMALL_BODY_BYTES) {
            body = new byte[length];
            int read = request.getInputStream().readNBytes(body, 0, length);
            if (read < length) {
                body = java.util.Arrays.copyOf(body, read);
            }
        } else {
            body = request.getInputStream().readAllBytes();
        }
        response.setStatus(200);
        if (request.getContentType() != null) {
            response.setContentType(request.getContentType());
        }
        String encoding = request.getHeader("Content-Encoding");
        if (encoding != null) {
            response.setHeader("Content-Encoding", encoding); // the same bytes back, so the same encoding
        }
        response.setHeader("x-echo-method", request.getMethod());
        String query = request.getQueryString();
        response.setHeader("x-echo-path", request.getRequestURI() + (query == null ? "" : "?" + query));
        String pathInfo = request.getPathInfo();
        if (pathInfo != null && printable(pathInfo)) {
            response.setHeader("x-echo-path-info", pathInfo);
        }
        for (Enumeration<String> names = request.getHeaderNames(); names.hasMoreElements(); ) {
            String name = names.nextElement();
            if (name.toLowerCase(Locale.ROOT).startsWith("x-")) {
                for (Enumeration<String> values = request.getHeaders(name); values.hasMoreElements(); ) {
                    response.addHeader(name, values.nextElement());
                }
            }
        }
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    /** Whether {@code text} holds no control character: a decoded path may, and a header value must not. */
    private static boolean printable(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                return false;
            }
        }
        return true;
    }
}
