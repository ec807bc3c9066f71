package rivet.runtime;

/**
 * Thrown in place of a call of the code under test that would reach outside its sandbox: a
 * file write, delete or rename outside java.io.tmpdir, a network connection, a process start
 * or a signal. An Error, so that code catching Exception does not hide it.
 */
public final class SandboxRefused extends Error {
    private static final long serialVersionUID = 1L;

    public SandboxRefused(String what) {
        super("refused by Rivet's sandbox: " + what);
    }
}
