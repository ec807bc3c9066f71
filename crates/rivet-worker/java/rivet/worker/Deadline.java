package rivet.worker;

import rivet.runtime.Probes;

/**
 * Each test's deadline inside the JVM, the same limit the Rust side waits for (its
 * `time_limit`: the configured limit, or in adaptive mode four times the slowest recent test
 * this JVM ran after its first, at least 250 ms), armed at four fifths of it in the branch
 * probes. Recent, as the Rust side's `RecentSlowest`: the slowest of the current window of 2,000
 * counted tests and of the window before. With a probe budget (the Rust side's
 * `TestLimit::Probes`, under an execution cap) a test also ends after that many branch probes, at
 * the same point on every run. A test in a loop of instrumented code then ends with
 * {@link rivet.runtime.Overrun} and the JVM runs the next test, and so does one in a loop of a
 * class without probes, whose backward jumps are watched; only a loop that never reaches a probe
 * or a watch (in the JDK's own code) still needs the Rust side to kill the JVM.
 */
final class Deadline {
    private static final long FLOOR = 250_000_000L;
    private static final long FACTOR = 4;
    private static final long WINDOW = 2_000;

    /** The configured limit (0: none told yet, no deadline). */
    private long limit;
    private boolean adaptive;
    /** Branch probes a test may execute (0: no such budget). */
    private long probes;
    /** Tests run in this JVM; the slowest counted in the current window and the one before
     * (-1: none), and the tests counted (not the first, not one that overran). */
    private long ran;
    private long current = -1;
    private long previous = -1;
    private long counted;
    private boolean probesMissing;

    /** What the Rust side set (a LIMITS request). */
    void set(long limitNanos, boolean adaptive, long probes) {
        this.limit = limitNanos;
        this.adaptive = adaptive;
        this.probes = probes;
    }

    /** Arms the probes for the next test. */
    void arm() {
        long l = limit;
        if (l <= 0 || probesMissing) {
            return;
        }
        long slowest = Math.max(current, previous);
        if (adaptive && slowest >= 0) {
            l = Math.max(Math.min(FLOOR, limit), Math.min(limit, slowest * FACTOR));
        }
        try {
            Probes.arm(l / 5 * 4, probes);
        } catch (LinkageError e) {
            probesMissing = true;
        }
    }

    /** Disarms them after the test that took `nanos`; true if it overran. */
    boolean disarm(long nanos) {
        boolean overran = false;
        if (!probesMissing) {
            try {
                overran = Probes.disarm();
            } catch (LinkageError e) {
                probesMissing = true;
            }
        }
        ran++;
        // As the Rust side: the first test (which loads classes) and overruns do not count.
        if (ran > 1 && !overran) {
            if (counted > 0 && counted % WINDOW == 0) {
                previous = current;
                current = -1;
            }
            counted++;
            current = Math.max(current, nanos);
        }
        return overran;
    }
}
