package rivet.runtime;

/**
 * Thrown by a branch probe once the running test is past the time the worker gave it: the test
 * ends there (reported as timed out) and the JVM goes on with the next test, instead of being
 * killed and replaced, which stalls the batch and leaves a cold JVM behind. A loop that never
 * reaches an instrumented branch is still ended by the kill.
 */
public final class Overrun extends Error {
    private static final long serialVersionUID = 1L;

    public Overrun() {
        super("the test ran past its time limit in instrumented code", null, false, false);
    }
}
