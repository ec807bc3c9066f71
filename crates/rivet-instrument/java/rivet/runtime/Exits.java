package rivet.runtime;

/**
 * Replacements for System.exit, Runtime.exit and Runtime.halt in instrumented classes: they throw
 * {@link ExitRequested} instead of ending the JVM, and remember the request so that the worker
 * reports it even when the code under test catches the error.
 */
public final class Exits {
    private Exits() {}

    /** The status of the last exit request since the last reset, or null. */
    private static Integer requested;

    public static void exit(int status) {
        requested = status;
        throw new ExitRequested("System.exit", status);
    }

    public static void runtimeExit(Runtime runtime, int status) {
        requested = status;
        throw new ExitRequested("Runtime.exit", status);
    }

    public static void runtimeHalt(Runtime runtime, int status) {
        requested = status;
        throw new ExitRequested("Runtime.halt", status);
    }

    /** The last requested status since reset, or null. */
    public static Integer requested() {
        return requested;
    }

    public static void reset() {
        requested = null;
    }
}
