package rivet.worker;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The test's own temporary directory (what JUnit's @TempDir gives the emitted test), made
 * beneath the worker's temporary directory on a test's first scratch value and removed after
 * the test; scratch values are the files and directories made beneath it.
 */
final class Scratch {
    private Scratch() {}

    private static final Path TMP = new File(System.getProperty("java.io.tmpdir")).getAbsoluteFile().toPath();

    /** The current test's directory, or null before its first scratch value. */
    private static Path root;

    /** The value of a scratch statement: its entry made, then its path as a File, Path or String. */
    static Object value(Batch.Statement s, Class<?>[] types, int at) throws IOException, Unrunnable {
        if (root == null) {
            root = Files.createTempDirectory(TMP, "junit");
        }
        Path p = root.resolve(s.path).normalize();
        if (!p.startsWith(root) || p.equals(root)) {
            throw new Unrunnable("scratch path " + s.path + " leaves the test's directory");
        }
        switch (s.body) {
            case 1:
                Files.createDirectories(p.getParent());
                Files.write(p, s.contents[0].getBytes(StandardCharsets.UTF_8));
                break;
            case 2:
                Files.createDirectories(p);
                for (int i = 0; i + 1 < s.contents.length; i += 2) {
                    Path f = p.resolve(s.contents[i]).normalize();
                    if (!f.getParent().equals(p)) {
                        throw new Unrunnable("scratch file " + s.contents[i] + " leaves its directory");
                    }
                    Files.write(f, s.contents[i + 1].getBytes(StandardCharsets.UTF_8));
                }
                break;
            default:
                Files.createDirectories(p.getParent());
                break;
        }
        if ("Ljava/io/File;".equals(s.text)) {
            types[at] = File.class;
            return p.toFile();
        }
        if ("Ljava/nio/file/Path;".equals(s.text)) {
            types[at] = Path.class;
            return p;
        }
        types[at] = String.class;
        return p.toString();
    }

    /** Removes the current test's directory and all it holds. */
    static void clear() {
        if (root == null) {
            return;
        }
        try (Stream<Path> all = Files.walk(root)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | RuntimeException e) {
            // A file the code under test keeps open, or made unreadable: the worker's
            // temporary directory goes with the worker.
        }
        root = null;
    }
}
