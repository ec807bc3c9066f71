package rivet.worker;

import java.security.Permission;

import rivet.runtime.Sandbox;

/**
 * Sees the file-system changes no call site shows: those the JDK makes on the code's behalf
 * (a FileSystemProvider called directly, FileChannel.open with WRITE, a transformer writing
 * its result file, a view's setter) reach the JDK's own write and delete checks. While a test's
 * statements run, each such change gets the interception's rule (only beneath what the test
 * made in java.io.tmpdir): anything else is refused and remembered, so the test is refused even
 * when the code under test swallows the error, as it would swallow the OS confinement's denial
 * and then assert an outcome the sandbox caused. Reads of the places whose contents differ from
 * machine to machine (the temporary, working and home directories, beyond what the test made)
 * are refused the same way: in a worker they are empty, in a developer's project they are not.
 *
 * Everything else is allowed: no permission is ever checked, so what user code may do and
 * reflect on is as in a developer's test JVM. Installed only where the JDK still allows a
 * security manager (up to Java 23); later JDKs keep the call sites' interception and the OS
 * confinement.
 */
final class WriteWatch extends SecurityManager {
    /** True while a test's statements run. */
    private static volatile boolean open;

    private WriteWatch() {}

    /** Installs the watch if this JDK allows it; false if not. */
    static boolean install() {
        try {
            // The common pool's threads are made before, as without a security manager.
            java.util.concurrent.ForkJoinPool.commonPool();
            System.setSecurityManager(new WriteWatch());
            return true;
        } catch (Throwable notSupported) {
            return false;
        }
    }

    static void open() {
        open = true;
    }

    static void close() {
        open = false;
    }

    @Override
    public void checkPermission(Permission perm) {
        // Allowed: only writes, deletes and programs are watched.
    }

    @Override
    public void checkPermission(Permission perm, Object context) {
        // Allowed, as above.
    }

    @Override
    public void checkWrite(String file) {
        if (open) {
            Sandbox.checkWrite(file);
        }
    }

    @Override
    public void checkRead(String file) {
        if (open) {
            Sandbox.checkRead(file);
        }
    }

    @Override
    public void checkRead(String file, Object context) {
        checkRead(file);
    }

    @Override
    public void checkDelete(String file) {
        if (open) {
            Sandbox.checkWrite(file);
        }
    }

    @Override
    public void checkExec(String cmd) {
        if (open) {
            Sandbox.deny("start a process (" + cmd + ")");
        }
    }
}
