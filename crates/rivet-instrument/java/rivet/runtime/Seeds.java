package rivet.runtime;

/**
 * Strings the code under test compared, searched for or parsed during a test (EvoSuite's
 * dynamic seeding): instrumented call sites of {@code String.equals}, {@code startsWith},
 * {@code indexOf}, {@code Integer.parseInt} and the like pass their string operands here; the
 * worker reads them after each test and Rivet adds them to the pool of values. Bounded, and
 * synchronized because the code under test may call from several threads.
 */
public final class Seeds {
    /** Most strings kept per test. */
    private static final int MAX = 32;
    /** Longest string kept. */
    private static final int MAX_LENGTH = 200;

    private static final String[] seen = new String[MAX];
    private static int count;

    private Seeds() {}

    /** The two operands of a comparison (receiver and argument). */
    public static void pair(Object a, Object b) {
        one(a);
        one(b);
    }

    /** One string operand (a parsed string). */
    public static synchronized void one(Object a) {
        if (!(a instanceof String) || count >= MAX) {
            return;
        }
        String s = (String) a;
        if (s.length() > MAX_LENGTH) {
            return;
        }
        for (int i = 0; i < count; i++) {
            if (seen[i].equals(s)) {
                return;
            }
        }
        seen[count++] = s;
    }

    public static synchronized int count() {
        return count;
    }

    public static synchronized String get(int i) {
        return seen[i];
    }

    public static synchronized void reset() {
        for (int i = 0; i < count; i++) {
            seen[i] = null;
        }
        count = 0;
    }
}
