import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * Loads and links every class of a directory or jar (args[0]; further args are extra
 * classpath elements for its dependencies) without initialising it, and reports what failed.
 *
 * Run it with -Xverify:all. Class.forName(name, false, loader) loads a class without linking
 * it; getDeclaredMethods() then links it (HotSpot's JVM_GetClassDeclaredMethods calls
 * link_class before it builds the Method objects), and linking verifies every method. Static
 * initialisers do not run, so no code of the classes is executed.
 *
 * Output: one line per failure, "VERIFY|FORMAT|MISSING|OTHER <class> <error>", then
 * "checked N ok O verify V format F missing M other X".
 */
public class VerifyAll {
    public static void main(String[] args) throws Exception {
        File root = new File(args[0]);
        List<URL> urls = new ArrayList<>();
        for (String a : args) {
            urls.add(new File(a).toURI().toURL());
        }
        List<String> names = root.isDirectory() ? fromDirectory(root.toPath()) : fromJar(root);
        Collections.sort(names);
        ClassLoader parent = ClassLoader.getPlatformClassLoader();
        int ok = 0, verify = 0, format = 0, missing = 0, other = 0;
        try (URLClassLoader loader = new URLClassLoader(urls.toArray(new URL[0]), parent)) {
            for (String n : names) {
                try {
                    Class<?> c = Class.forName(n, false, loader);
                    c.getDeclaredMethods();
                    ok++;
                } catch (VerifyError e) {
                    verify++;
                    System.out.println("VERIFY " + n + " " + oneLine(e));
                } catch (ClassFormatError e) {
                    format++;
                    System.out.println("FORMAT " + n + " " + oneLine(e));
                } catch (NoClassDefFoundError | TypeNotPresentException e) {
                    missing++;
                    System.out.println("MISSING " + n + " " + oneLine(e));
                } catch (Throwable e) {
                    other++;
                    System.out.println("OTHER " + n + " " + oneLine(e));
                }
            }
        }
        System.out.println("checked " + names.size() + " ok " + ok + " verify " + verify + " format "
                + format + " missing " + missing + " other " + other);
    }

    private static String oneLine(Throwable t) {
        return (t.getClass().getName() + ": " + t.getMessage()).replace('\n', ' ');
    }

    private static boolean wanted(String path) {
        if (!path.endsWith(".class")) {
            return false;
        }
        String n = path.substring(0, path.length() - 6);
        return !n.contains("-") && !n.endsWith("module-info");
    }

    private static List<String> fromDirectory(Path root) throws Exception {
        List<String> out = new ArrayList<>();
        try (Stream<Path> s = Files.walk(root)) {
            s.filter(Files::isRegularFile).forEach(p -> {
                String rel = root.relativize(p).toString().replace(File.separatorChar, '/');
                if (wanted(rel)) {
                    out.add(rel.substring(0, rel.length() - 6).replace('/', '.'));
                }
            });
        }
        return out;
    }

    private static List<String> fromJar(File jar) throws Exception {
        List<String> out = new ArrayList<>();
        try (JarFile j = new JarFile(jar)) {
            Enumeration<JarEntry> e = j.entries();
            while (e.hasMoreElements()) {
                String rel = e.nextElement().getName();
                if (wanted(rel)) {
                    out.add(rel.substring(0, rel.length() - 6).replace('/', '.'));
                }
            }
        }
        return out;
    }
}
