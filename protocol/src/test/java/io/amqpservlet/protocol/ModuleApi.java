package io.amqpservlet.protocol;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Reads a library's module descriptor from its build output (tests run on the class path, so the descriptor is
 * read from the classes, not from the running module) and checks that its exported API is closed: no public or
 * protected member of an exported type names one of our types that is not public or not exported
 * (docs/design.md §8). Shared test support for every library module.
 */
public final class ModuleApi {
    private ModuleApi() {
    }

    /** The descriptor of the module {@code anyClass} was built into (its classes directory or jar). */
    public static ModuleDescriptor descriptorOf(Class<?> anyClass) {
        Path location = locationOf(anyClass);
        List<ModuleReference> modules = new ArrayList<>(ModuleFinder.of(location).findAll());
        if (modules.size() != 1) {
            throw new AssertionError(location + " holds " + modules.size() + " module descriptors, not 1");
        }
        return modules.get(0).descriptor();
    }

    /** The packages the module exports to everyone. */
    public static Set<String> unqualifiedExports(ModuleDescriptor descriptor) {
        Set<String> out = new TreeSet<>();
        for (ModuleDescriptor.Exports e : descriptor.exports()) {
            if (!e.isQualified()) {
                out.add(e.source());
            }
        }
        return out;
    }

    /**
     * Every place where the exported API of {@code anyClass}'s module names one of our types (package
     * {@code io.amqpservlet}) that an application cannot use: not public, or in a package its module does not
     * export. Empty when the API is closed.
     */
    public static List<String> leaks(Class<?> anyClass) {
        ModuleDescriptor descriptor = descriptorOf(anyClass);
        Set<String> exported = unqualifiedExports(descriptor);
        List<String> leaks = new ArrayList<>();
        for (Class<?> type : classesOf(anyClass)) {
            if (!exported.contains(type.getPackageName()) || !isApi(type)) {
                continue;
            }
            check(type.getName() + " extends", type.getSuperclass(), leaks);
            for (Class<?> i : type.getInterfaces()) {
                check(type.getName() + " implements", i, leaks);
            }
            for (Method m : type.getDeclaredMethods()) {
                if (visible(m) && !m.isSynthetic() && !m.isBridge()) {
                    check(where(type, m), m.getReturnType(), leaks);
                    for (Class<?> p : m.getParameterTypes()) {
                        check(where(type, m), p, leaks);
                    }
                }
            }
            for (Constructor<?> c : type.getDeclaredConstructors()) {
                if (visible(c)) {
                    for (Class<?> p : c.getParameterTypes()) {
                        check(where(type, c), p, leaks);
                    }
                }
            }
            for (Field f : type.getDeclaredFields()) {
                if (visible(f) && !f.isSynthetic()) {
                    check(where(type, f), f.getType(), leaks);
                }
            }
        }
        return leaks;
    }

    private static boolean isApi(Class<?> type) {
        for (Class<?> t = type; t != null; t = t.getDeclaringClass()) {
            if (!Modifier.isPublic(t.getModifiers()) && !Modifier.isProtected(t.getModifiers())) {
                return false;
            }
        }
        return true;
    }

    private static boolean visible(Member m) {
        return Modifier.isPublic(m.getModifiers()) || Modifier.isProtected(m.getModifiers());
    }

    private static String where(Class<?> type, Member m) {
        return type.getName() + "." + m.getName();
    }

    private static void check(String where, Class<?> used, List<String> leaks) {
        while (used != null && used.isArray()) {
            used = used.getComponentType();
        }
        if (used == null || used.isPrimitive() || !used.getName().startsWith("io.amqpservlet.")) {
            return;
        }
        if (!isApi(used)) {
            leaks.add(where + " names " + used.getName() + ", which is not public");
        } else if (!unqualifiedExports(descriptorOf(used)).contains(used.getPackageName())) {
            leaks.add(where + " names " + used.getName() + ", whose package is not exported");
        }
    }

    private static List<Class<?>> classesOf(Class<?> anyClass) {
        Path root = locationOf(anyClass);
        if (!Files.isDirectory(root)) {
            throw new AssertionError("expected the classes directory, found " + root);
        }
        List<Class<?>> out = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                String name = root.relativize(f).toString();
                if (name.endsWith(".class") && !name.endsWith("module-info.class")) {
                    String className = name.substring(0, name.length() - 6).replace(f.getFileSystem().getSeparator(), ".");
                    out.add(Class.forName(className, false, anyClass.getClassLoader()));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (ClassNotFoundException e) {
            throw new AssertionError(e);
        }
        return out;
    }

    private static Path locationOf(Class<?> anyClass) {
        try {
            return Path.of(anyClass.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new AssertionError(e);
        }
    }
}
