package rivet.verify;

/**
 * Runs JUnit's console launcher after taking a number of identity hash codes: every identity
 * hash code the tests then see differs from a run without them (HotSpot draws them from a
 * random sequence), so that a test whose outcome hangs on them shows it in one of the runs.
 * Compiled beside the tests (not a test: only the class under test's suite is selected); the
 * first argument is the count, the rest the launcher's.
 */
public final class HashShift {
    private HashShift() {}

    public static void main(String[] args) throws Exception {
        int draws = Integer.parseInt(args[0]);
        int mixed = 0;
        for (int i = 0; i < draws; i++) {
            mixed ^= System.identityHashCode(new Object());
        }
        if (mixed == Integer.MIN_VALUE) {
            System.err.print("");
        }
        String[] rest = java.util.Arrays.copyOfRange(args, 1, args.length);
        // Found at run time: the tests compile without the launcher on their class path.
        Class.forName("org.junit.platform.console.ConsoleLauncher")
                .getMethod("main", String[].class)
                .invoke(null, (Object) rest);
    }
}
