package rivet.worker;

/**
 * A statement the harness could not run as written: an unknown class or member, a member that is
 * not public, an argument of the wrong type. Reported as the statement's exception under this
 * class's name, so that it is never confused with an exception of the code under test.
 */
final class Unrunnable extends Exception {
    private static final long serialVersionUID = 1L;

    Unrunnable(String message) {
        super(message, null, false, false);
    }
}
