package rivet.runtime;

/** Thrown in place of ending the JVM when instrumented code calls System.exit, Runtime.exit or Runtime.halt. */
public final class ExitRequested extends Error {
    private static final long serialVersionUID = 1L;

    private final int status;

    public ExitRequested(String call, int status) {
        super(call + "(" + status + ") called by the code under test");
        this.status = status;
    }

    public int status() {
        return status;
    }
}
