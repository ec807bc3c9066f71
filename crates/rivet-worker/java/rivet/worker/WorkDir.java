package rivet.worker;

import java.io.File;

/**
 * The worker's working directory, writable and empty like a developer's fresh project
 * directory: after each test, whatever the test left there is named and removed (the
 * interception refuses the writes it sees; this finds those it does not, such as writes the
 * JDK makes on the code's behalf).
 */
final class WorkDir {
    private WorkDir() {}

    private static final File CWD = new File(System.getProperty("user.dir")).getAbsoluteFile();

    /** The first entry the last test left in the working directory (all are removed), or null. */
    static String sweep() {
        String[] left = CWD.list();
        if (left == null || left.length == 0) {
            return null;
        }
        java.util.Arrays.sort(left);
        for (String name : left) {
            remove(new File(CWD, name));
        }
        return new File(CWD, left[0]).getPath();
    }

    private static void remove(File f) {
        File[] children = f.isDirectory() ? f.listFiles() : null;
        if (children != null) {
            for (File c : children) {
                remove(c);
            }
        }
        f.delete();
    }
}
