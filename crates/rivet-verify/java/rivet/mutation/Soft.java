package rivet.mutation;

import java.util.Set;
import java.util.TreeSet;

/**
 * Assertions that record their failure instead of ending the test: the mutation runner runs
 * a copy of a suite whose assertions go through {@link #check}, to learn which assertion
 * tells which mutant from the original.
 */
public final class Soft {
    /** An assertion to check. */
    public interface Check {
        void run() throws Throwable;
    }

    private static final Set<String> FAILED = new TreeSet<>();

    private Soft() {}

    /**
     * Runs assertion {@code key}; a failure is recorded and the test goes on. So is an
     * exception out of the assertion's own calls (an inspector, a {@code toString}): the
     * assertion is what meets it, and a test without the assertion would not.
     */
    @SuppressWarnings({"deprecation", "removal"})
    public static void check(String key, Check c) throws Throwable {
        try {
            c.run();
        } catch (ThreadDeath e) {
            throw e;
        } catch (Throwable e) {
            synchronized (FAILED) {
                FAILED.add(key);
            }
        }
    }

    /** The keys of the assertions that failed since the last call, comma-separated. */
    public static String drain() {
        synchronized (FAILED) {
            String s = String.join(",", FAILED);
            FAILED.clear();
            return s;
        }
    }
}
