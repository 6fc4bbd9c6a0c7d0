package io.amqpservlet.gateway;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Compiles one Java source file into a directory with the JDK's compiler, as a user's build would. */
final class JavaSource {
    private JavaSource() {
    }

    /** Writes {@code source} as {@code className} under {@code sources} and compiles it into {@code classes}. */
    static void compile(Path sources, Path classes, String className, String source) throws Exception {
        Path file = sources.resolve(className.replace('.', '/') + ".java");
        Files.createDirectories(file.getParent());
        Files.createDirectories(classes);
        Files.writeString(file, source, StandardCharsets.UTF_8);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int status = javac.run(null, null, errors, "-cp", System.getProperty("java.class.path"), "-d",
                classes.toString(), file.toString());
        if (status != 0) {
            throw new IllegalStateException("javac failed: " + errors.toString(StandardCharsets.UTF_8));
        }
    }
}
