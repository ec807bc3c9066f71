package rivet.mutation;

/**
 * Which mutants the running test has reached: the reach-probed class under test calls
 * {@link #hit} before every instruction a mutant changes.
 */
public final class Reach {
    private static volatile boolean[] hits = new boolean[0];

    private Reach() {}

    /** Room for mutants 0 to n - 1, none reached. */
    public static void init(int n) {
        hits = new boolean[n];
    }

    public static void hit(int id) {
        boolean[] h = hits;
        if (id >= 0 && id < h.length) {
            h[id] = true;
        }
    }

    public static void reset() {
        java.util.Arrays.fill(hits, false);
    }

    /** The reached mutants, comma-separated. */
    public static String reached() {
        StringBuilder b = new StringBuilder();
        boolean[] h = hits;
        for (int i = 0; i < h.length; i++) {
            if (h[i]) {
                if (b.length() > 0) {
                    b.append(',');
                }
                b.append(i);
            }
        }
        return b.toString();
    }
}
