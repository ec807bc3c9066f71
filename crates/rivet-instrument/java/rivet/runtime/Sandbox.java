package rivet.runtime;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.BufferedWriter;
import java.net.URL;
import java.net.URLConnection;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.Charset;
import java.nio.file.CopyOption;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.UserPrincipal;
import java.util.Set;

/**
 * The checks and wrappers that instrumented code calls in place of the JDK's file, network
 * and process entry points. Writes, deletes and renames are allowed only beneath what the
 * current test made in java.io.tmpdir (its own temporary directory, JUnit's @TempDir, and the
 * temporary files it created): an entry of java.io.tmpdir that was there before the test, and
 * the directory itself, stay untouched, as a developer's /tmp must when the emitted test runs.
 * Everything else that would reach outside the sandbox throws {@link SandboxRefused} and is
 * remembered, so that the worker reports it even when the code under test catches the error.
 * A wrapper has the JDK method's descriptor with the receiver first, so that replacing the
 * call changes neither the stack nor the instruction's size.
 */
public final class Sandbox {
    private Sandbox() {}

    /** What was refused last since the last reset, or null. */
    private static String refused;

    /** The canonical temporary directory, read once. */
    private static final Path TEMP = temp();

    private static Path temp() {
        try {
            return new File(System.getProperty("java.io.tmpdir")).getCanonicalFile().toPath();
        } catch (Throwable e) {
            return null;
        }
    }

    public static String refused() {
        return refused;
    }

    /** The entries of the temporary directory when the current test began. */
    private static Set<String> before = new java.util.HashSet<String>();

    public static void reset() {
        refused = null;
        before = new java.util.HashSet<String>();
        String[] entries = TEMP == null ? null : TEMP.toFile().list();
        if (entries != null) {
            java.util.Collections.addAll(before, entries);
        }
    }

    /** Refuses an operation that is never allowed. */
    public static void deny(String what) {
        refused = what;
        throw new SandboxRefused(what);
    }

    /** The working directory and the home directory, read once (null if unreadable). */
    private static final Path CWD = canonical(System.getProperty("user.dir"));
    private static final Path HOME = canonical(System.getProperty("user.home"));

    private static Path canonical(String dir) {
        try {
            return dir == null ? null : new File(dir).getCanonicalFile().toPath();
        } catch (Throwable e) {
            return null;
        }
    }

    /**
     * Refuses a read whose outcome differs from machine to machine: the temporary directory
     * itself and its entries the current test did not make, the working directory (a project
     * directory where the developer runs the test) and the home directory, with what is in
     * them. In a worker they are empty; on a developer's machine they are not, so a test that
     * lists or reads them would assert what holds only in Rivet.
     */
    public static void checkRead(Object target) {
        if (target == null) {
            return;
        }
        Path p;
        try {
            p = new File(target.toString()).toPath().toAbsolutePath().normalize();
        } catch (Throwable e) {
            return;
        }
        if (TEMP != null && p.startsWith(TEMP)) {
            if (p.equals(TEMP) || before.contains(p.getName(TEMP.getNameCount()).toString())) {
                deny("read " + p + " (the temporary directory: its contents differ from machine to machine)");
            }
            return;
        }
        if ((CWD != null && p.startsWith(CWD)) || (HOME != null && p.startsWith(HOME))) {
            deny("read " + p + " (the working or home directory: its contents differ from machine to machine)");
        }
    }

    /** Refuses a change to the file system outside the temporary directory. */
    public static void checkWrite(Object target) {
        if (target == null) {
            return; // the JDK call throws its own NullPointerException
        }
        Path p;
        try {
            if (target instanceof Path) {
                p = (Path) target;
            } else if (target instanceof File) {
                p = ((File) target).toPath();
            } else {
                p = new File(target.toString()).toPath();
            }
            p = p.toAbsolutePath().normalize();
        } catch (Throwable e) {
            deny("write to " + target);
            return;
        }
        // Beneath an entry of the temporary directory that the current test made.
        if (TEMP == null || !p.startsWith(TEMP) || p.equals(TEMP)
                || before.contains(p.getName(TEMP.getNameCount()).toString())) {
            deny("write to " + p);
        }
    }

    /**
     * Files.getFileAttributeView: for a path the test may not change, a view whose setters
     * (permissions, owner, times, DOS flags, ACLs) are refused; its getters read as usual.
     */
    @SuppressWarnings("unchecked")
    public static <V extends java.nio.file.attribute.FileAttributeView> V filesGetFileAttributeView(
            Path p, Class<V> type, LinkOption[] options) {
        final V view = Files.getFileAttributeView(p, type, options);
        if (view == null || type == null || !type.isInterface()) {
            return view;
        }
        String prior = refused;
        try {
            checkWrite(p);
            return view;
        } catch (SandboxRefused notWritable) {
            refused = prior; // only a setter's call is a refusal
        }
        final Path target = p;
        return (V) java.lang.reflect.Proxy.newProxyInstance(
                Sandbox.class.getClassLoader(),
                new Class<?>[] {type},
                new java.lang.reflect.InvocationHandler() {
                    @Override
                    public Object invoke(Object proxy, java.lang.reflect.Method m, Object[] args) throws Throwable {
                        if (m.getName().startsWith("set")) {
                            deny("change the attributes of " + target);
                        }
                        try {
                            return m.invoke(view, args);
                        } catch (java.lang.reflect.InvocationTargetException e) {
                            throw e.getCause();
                        }
                    }
                });
    }

    /** RandomAccessFile: only the modes with "w" write. */
    public static void checkRandomAccess(Object target, String mode) {
        if (mode != null && mode.indexOf('w') >= 0) {
            checkWrite(target);
        }
    }

    /** URL.openConnection and openStream: local file and jar URLs only. */
    public static void checkUrl(URL url) {
        if (url == null) {
            return;
        }
        String protocol = url.getProtocol();
        if (!"file".equals(protocol) && !"jar".equals(protocol)) {
            deny("open " + url);
        }
    }

    /** URLConnection.connect, getInputStream and getOutputStream. */
    public static void checkConnection(URLConnection c) {
        if (c != null) {
            checkUrl(c.getURL());
            if (c.getDoOutput() && "file".equals(c.getURL().getProtocol())) {
                checkWrite(c.getURL().getPath());
            }
        }
    }

    private static void checkOptions(Path p, OpenOption[] options) {
        if (options == null) {
            return;
        }
        for (OpenOption o : options) {
            if (o == StandardOpenOption.WRITE || o == StandardOpenOption.APPEND
                    || o == StandardOpenOption.CREATE || o == StandardOpenOption.CREATE_NEW
                    || o == StandardOpenOption.TRUNCATE_EXISTING || o == StandardOpenOption.DELETE_ON_CLOSE) {
                checkWrite(p);
                return;
            }
        }
    }

    private static void checkOptions(Path p, Set<? extends OpenOption> options) {
        if (options != null) {
            checkOptions(p, options.toArray(new OpenOption[0]));
        }
    }

    // java.io.File

    public static boolean fileDelete(File f) {
        checkWrite(f);
        return f.delete();
    }

    public static void fileDeleteOnExit(File f) {
        checkWrite(f);
        f.deleteOnExit();
    }

    public static boolean fileMkdir(File f) {
        checkWrite(f);
        return f.mkdir();
    }

    public static boolean fileMkdirs(File f) {
        checkWrite(f);
        return f.mkdirs();
    }

    public static boolean fileCreateNewFile(File f) throws IOException {
        checkWrite(f);
        return f.createNewFile();
    }

    public static boolean fileRenameTo(File f, File to) {
        checkWrite(f);
        checkWrite(to);
        return f.renameTo(to);
    }

    public static boolean fileSetLastModified(File f, long time) {
        checkWrite(f);
        return f.setLastModified(time);
    }

    public static boolean fileSetReadOnly(File f) {
        checkWrite(f);
        return f.setReadOnly();
    }

    public static boolean fileSetWritable(File f, boolean a) {
        checkWrite(f);
        return f.setWritable(a);
    }

    public static boolean fileSetWritable(File f, boolean a, boolean b) {
        checkWrite(f);
        return f.setWritable(a, b);
    }

    public static boolean fileSetReadable(File f, boolean a) {
        checkWrite(f);
        return f.setReadable(a);
    }

    public static boolean fileSetReadable(File f, boolean a, boolean b) {
        checkWrite(f);
        return f.setReadable(a, b);
    }

    public static boolean fileSetExecutable(File f, boolean a) {
        checkWrite(f);
        return f.setExecutable(a);
    }

    public static boolean fileSetExecutable(File f, boolean a, boolean b) {
        checkWrite(f);
        return f.setExecutable(a, b);
    }

    // java.nio.file.Files

    public static Path filesWrite(Path p, byte[] bytes, OpenOption[] options) throws IOException {
        checkWrite(p);
        return Files.write(p, bytes, options);
    }

    public static Path filesWrite(Path p, Iterable<? extends CharSequence> lines, OpenOption[] options) throws IOException {
        checkWrite(p);
        return Files.write(p, lines, options);
    }

    public static Path filesWrite(Path p, Iterable<? extends CharSequence> lines, Charset cs, OpenOption[] options) throws IOException {
        checkWrite(p);
        return Files.write(p, lines, cs, options);
    }

    public static OutputStream filesNewOutputStream(Path p, OpenOption[] options) throws IOException {
        checkWrite(p);
        return Files.newOutputStream(p, options);
    }

    public static BufferedWriter filesNewBufferedWriter(Path p, OpenOption[] options) throws IOException {
        checkWrite(p);
        return Files.newBufferedWriter(p, options);
    }

    public static BufferedWriter filesNewBufferedWriter(Path p, Charset cs, OpenOption[] options) throws IOException {
        checkWrite(p);
        return Files.newBufferedWriter(p, cs, options);
    }

    public static SeekableByteChannel filesNewByteChannel(Path p, OpenOption[] options) throws IOException {
        checkOptions(p, options);
        return Files.newByteChannel(p, options);
    }

    public static SeekableByteChannel filesNewByteChannel(Path p, Set<? extends OpenOption> options, FileAttribute<?>[] attrs) throws IOException {
        checkOptions(p, options);
        return Files.newByteChannel(p, options, attrs);
    }

    public static Path filesCreateFile(Path p, FileAttribute<?>[] attrs) throws IOException {
        checkWrite(p);
        return Files.createFile(p, attrs);
    }

    public static Path filesCreateDirectory(Path p, FileAttribute<?>[] attrs) throws IOException {
        checkWrite(p);
        return Files.createDirectory(p, attrs);
    }

    public static Path filesCreateDirectories(Path p, FileAttribute<?>[] attrs) throws IOException {
        checkWrite(p);
        return Files.createDirectories(p, attrs);
    }

    public static Path filesCreateLink(Path link, Path existing) throws IOException {
        checkWrite(link);
        return Files.createLink(link, existing);
    }

    public static Path filesCreateSymbolicLink(Path link, Path target, FileAttribute<?>[] attrs) throws IOException {
        checkWrite(link);
        return Files.createSymbolicLink(link, target, attrs);
    }

    public static void filesDelete(Path p) throws IOException {
        checkWrite(p);
        Files.delete(p);
    }

    public static boolean filesDeleteIfExists(Path p) throws IOException {
        checkWrite(p);
        return Files.deleteIfExists(p);
    }

    public static Path filesMove(Path from, Path to, CopyOption[] options) throws IOException {
        checkWrite(from);
        checkWrite(to);
        return Files.move(from, to, options);
    }

    public static Path filesCopy(Path from, Path to, CopyOption[] options) throws IOException {
        checkWrite(to);
        return Files.copy(from, to, options);
    }

    public static long filesCopy(InputStream in, Path to, CopyOption[] options) throws IOException {
        checkWrite(to);
        return Files.copy(in, to, options);
    }

    public static Path filesSetLastModifiedTime(Path p, FileTime time) throws IOException {
        checkWrite(p);
        return Files.setLastModifiedTime(p, time);
    }

    public static Path filesSetPosixFilePermissions(Path p, Set<PosixFilePermission> perms) throws IOException {
        checkWrite(p);
        return Files.setPosixFilePermissions(p, perms);
    }

    public static Path filesSetOwner(Path p, UserPrincipal owner) throws IOException {
        checkWrite(p);
        return Files.setOwner(p, owner);
    }

    public static Path filesSetAttribute(Path p, String attribute, Object value, LinkOption[] options) throws IOException {
        checkWrite(p);
        return Files.setAttribute(p, attribute, value, options);
    }

    // Processes and signals, for method references (invokedynamic) to them.

    public static Process processBuilderStart(ProcessBuilder b) {
        deny("start the process " + b.command());
        return null;
    }

    public static boolean processHandleDestroy(Object handle) {
        deny("signal the process " + handle);
        return false;
    }

    public static void processDestroy(Process p) {
        deny("signal a process");
    }

    public static Process processDestroyForcibly(Process p) {
        deny("signal a process");
        return null;
    }

    // java.nio.channels.FileChannel and java.nio.file.spi.FileSystemProvider: the calls below
    // Files that change the file system, where no Files method shows them.

    public static java.nio.channels.FileChannel fileChannelOpen(Path p, OpenOption[] options) throws IOException {
        checkOptions(p, options);
        return java.nio.channels.FileChannel.open(p, options);
    }

    public static java.nio.channels.FileChannel fileChannelOpen(Path p, Set<? extends OpenOption> options, FileAttribute<?>[] attrs) throws IOException {
        checkOptions(p, options);
        return java.nio.channels.FileChannel.open(p, options, attrs);
    }

    public static SeekableByteChannel providerNewByteChannel(java.nio.file.spi.FileSystemProvider provider, Path p, Set<? extends OpenOption> options, FileAttribute<?>[] attrs) throws IOException {
        checkOptions(p, options);
        return provider.newByteChannel(p, options, attrs);
    }

    public static java.nio.channels.FileChannel providerNewFileChannel(java.nio.file.spi.FileSystemProvider provider, Path p, Set<? extends OpenOption> options, FileAttribute<?>[] attrs) throws IOException {
        checkOptions(p, options);
        return provider.newFileChannel(p, options, attrs);
    }

    public static OutputStream providerNewOutputStream(java.nio.file.spi.FileSystemProvider provider, Path p, OpenOption[] options) throws IOException {
        checkWrite(p);
        return provider.newOutputStream(p, options);
    }

    public static void providerDelete(java.nio.file.spi.FileSystemProvider provider, Path p) throws IOException {
        checkWrite(p);
        provider.delete(p);
    }

    public static boolean providerDeleteIfExists(java.nio.file.spi.FileSystemProvider provider, Path p) throws IOException {
        checkWrite(p);
        return provider.deleteIfExists(p);
    }

    public static void providerCreateDirectory(java.nio.file.spi.FileSystemProvider provider, Path p, FileAttribute<?>[] attrs) throws IOException {
        checkWrite(p);
        provider.createDirectory(p, attrs);
    }

    public static void providerCreateSymbolicLink(java.nio.file.spi.FileSystemProvider provider, Path link, Path target, FileAttribute<?>[] attrs) throws IOException {
        checkWrite(link);
        provider.createSymbolicLink(link, target, attrs);
    }

    public static void providerCreateLink(java.nio.file.spi.FileSystemProvider provider, Path link, Path existing) throws IOException {
        checkWrite(link);
        provider.createLink(link, existing);
    }

    public static void providerCopy(java.nio.file.spi.FileSystemProvider provider, Path source, Path target, CopyOption[] options) throws IOException {
        checkWrite(target);
        provider.copy(source, target, options);
    }

    public static void providerMove(java.nio.file.spi.FileSystemProvider provider, Path source, Path target, CopyOption[] options) throws IOException {
        checkWrite(source);
        checkWrite(target);
        provider.move(source, target, options);
    }

    public static void providerSetAttribute(java.nio.file.spi.FileSystemProvider provider, Path p, String attribute, Object value, LinkOption[] options) throws IOException {
        checkWrite(p);
        provider.setAttribute(p, attribute, value, options);
    }

    public static <V extends java.nio.file.attribute.FileAttributeView> V providerGetFileAttributeView(
            java.nio.file.spi.FileSystemProvider provider, Path p, Class<V> type, LinkOption[] options) {
        // The same view as through Files: its setters refused where the test may not write.
        return filesGetFileAttributeView(p, type, options);
    }
}
