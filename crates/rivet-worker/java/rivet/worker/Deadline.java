package rivet.worker;

import rivet.runtime.Probes;

/**
 * Each test's deadline inside the JVM, the same limit the Rust side waits for (its
 * `time_limit`: the configured limit, or in adaptive mode twenty times the slowest test this JVM
 * ran after its first, at least 250 ms), armed at four fifths of it in the branch probes. A test
 * in a loop of instrumented code then ends with {@link rivet.runtime.Overrun} and the JVM runs the
 * next test; only a loop that never reaches a probe still needs the Rust side to kill the JVM.
 */
final class Deadline {
    private static final long FLOOR = 250_000_000L;
    private static final long FACTOR = 20;

    /** The configured limit (0: none told yet, no deadline). */
    private long limit;
    private boolean adaptive;
    /** Tests run in this JVM, and the slowest of them after the first (-1: none yet). */
    private long ran;
    private long slowest = -1;
    private boolean probesMissing;

    /** What the Rust side set (a LIMITS request). */
    void set(long limitNanos, boolean adaptive) {
        this.limit = limitNanos;
        this.adaptive = adaptive;
    }

    /** Arms the probes for the next test. */
    void arm() {
        long l = limit;
        if (l <= 0 || probesMissing) {
            return;
        }
        if (adaptive && slowest >= 0) {
            l = Math.max(Math.min(FLOOR, limit), Math.min(limit, slowest * FACTOR));
        }
        try {
            Probes.arm(l / 5 * 4);
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
            slowest = Math.max(slowest, nanos);
        }
        return overran;
    }
}
